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
