#if canImport(Glibc)
import Glibc
#endif

/// How ternd's heap gives memory back to the kernel.
///
/// glibc returns the free top of a heap to the kernel once it is past 128 KiB (`madvise`, or
/// `brk` on the main heap), and the next allocation there faults the pages back in. SQLite's
/// statement journals and page buffers take and free about that much for every message, so at low
/// rates every message paid a `madvise` and the page faults after it (issue 35: one `madvise` per
/// message under `strace -c`, ~3 % of a 2-member message's CPU in `perf`). ``keepFreedMemory()``
/// lets each heap keep up to ``trimThreshold`` of freed memory for the next allocations; blocks of
/// ``mmapThreshold`` or more still get mappings of their own, returned to the kernel as they are freed.
/// The peak does not grow: only what was in use already stays mapped.
public enum HeapTuning {
    static let trimThreshold: Int32 = 8 << 20
    static let mmapThreshold: Int32 = 1 << 20
    /// `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD` of glibc's `<malloc.h>`, which Swift's `Glibc`
    /// module does not include (nor `mallopt`, looked up by name below).
    static let trimThresholdParameter: Int32 = -1
    static let mmapThresholdParameter: Int32 = -3

    /// Call first thing in a command that serves. Returns whether the allocator took both settings
    /// (false where the C library is not glibc).
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        return mallopt(trimThresholdParameter, trimThreshold) == 1 && mallopt(mmapThresholdParameter, mmapThreshold) == 1
        #else
        return false
        #endif
    }
}
