import Foundation
import TernKit
import TernProtocol
import Testing

@testable import TernTUI

@Suite("Time formats")
struct TimeFormatTests {
    @Test func patternsMatchDateFormatter() {
        let zones = [TimeZone(identifier: "UTC")!, TimeZone(identifier: "Asia/Kolkata")!, TimeZone(identifier: "America/Los_Angeles")!]
        let patterns = ["HH:mm", "HH:mm:ss", "h:mm a", "EEE d MMM yyyy", "d MMM HH:mm", "yyyy-MM-dd'T'HH:mm", "EEEE, MMMM d", "yy/M/d"]
        for zone in zones {
            for t: Double in [0, 951_782_400, 1_795_300_000.5, 1_709_164_800, -34_560_000] {
                let date = Date(timeIntervalSince1970: t)
                for p in patterns {
                    let f = DateFormatter()
                    f.locale = Locale(identifier: "en_US_POSIX")
                    f.timeZone = zone
                    f.dateFormat = p
                    #expect(TimeFormat(p, timeZone: zone).string(from: date) == f.string(from: date), "\(p) at \(t) in \(zone.identifier)")
                }
            }
        }
    }
}

@Suite("Zones")
struct ZoneTests {
    /// The machine's zone through libc agrees with Foundation's `TimeZone.current` (the same TZ or
    /// /etc/localtime) at every hour of two years, daylight saving changes included where the zone has them.
    @Test func theSystemZoneAgreesWithFoundation() {
        let start = 1_767_225_600  // 2026-01-01 UTC
        for hour in stride(from: 0, to: 2 * 366 * 24, by: 1) {
            let t = start + hour * 3600
            let foundation = TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(t)))
            #expect(Zone.system.secondsFromGMT(at: t) == foundation, "at \(t)")
        }
    }

    @Test func aNamedZoneIsFoundationsAndUTCIsZero() {
        let paris = TimeZone(identifier: "Europe/Paris")!
        let winter = 1_795_300_000  // 2026-11-21
        let summer = 1_782_000_000  // 2026-06-21 00:00 UTC
        #expect(Zone(paris).secondsFromGMT(at: winter) == 3600 && Zone(paris).secondsFromGMT(at: summer) == 7200)
        #expect(Zone.utc.secondsFromGMT(at: winter) == 0 && Zone.utc.secondsFromGMT(at: summer) == 0)
        #expect(TimeFormat("HH:mm", zone: Zone(paris)).string(from: Date(timeIntervalSince1970: Double(summer))) == "02:00")
    }
}
