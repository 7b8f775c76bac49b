import Testing

@testable import TernServer

@Suite("Connection peaks")
struct ConnectionPeaksTests {
    @Test("A rise is written at once, then at most every 10 s; a new day starts from nothing")
    func peaks() {
        let p = ConnectionPeaks()
        let day: Int64 = 86_400_000 * 100
        #expect(p.note(3, at: day + 1_000)! == (day: 100, peak: 3))
        #expect(p.note(2, at: day + 2_000) == nil, "not a rise")
        #expect(p.note(5, at: day + 3_000) == nil, "a rise, but written 2 s ago")
        #expect(p.today == ConnectionPeaks.Day(day: 100, peak: 5, savedAt: day + 1_000, saved: 3))
        #expect(p.note(6, at: day + 11_000)! == (day: 100, peak: 6))
        #expect(p.note(1, at: day + 86_400_000)! == (day: 101, peak: 1), "the next day")
        #expect(p.today.peak == 1)
    }
}
