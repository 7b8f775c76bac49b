import Testing

@testable import TernServer

/// ``HeapTuning``: glibc's allocator is found by name and takes both thresholds.
@Suite("HeapTuning: freed memory kept for the next message")
struct HeapTuningTests {
    @Test("mallopt is found and accepts the trim and mmap thresholds")
    func settingsAccepted() {
        #expect(HeapTuning.keepFreedMemory())
    }
}
