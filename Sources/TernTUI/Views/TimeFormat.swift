public import Foundation

/// Formats times with the date-format patterns people know (`HH:mm`, `h:mm a`, `EEE d MMM yyyy`,
/// `'quoted'` text) without DateFormatter: its ICU calendar machinery costs megabytes of memory and
/// tens of microseconds a call, for English month and day names and a time zone offset.
public struct TimeFormat: Sendable {
    enum Token: Sendable {
        case literal(String)
        case field(Character, Int)
    }
    let tokens: [Token]
    let zone: Zone

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    static let days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    public init(_ pattern: String, timeZone: TimeZone) {
        self.init(pattern, zone: Zone(timeZone))
    }

    public init(_ pattern: String, zone: Zone) {
        self.zone = zone
        var out: [Token] = []
        let chars = Array(pattern)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "'" {
                var j = i + 1
                var text = ""
                while j < chars.count, chars[j] != "'" {
                    text.append(chars[j])
                    j += 1
                }
                out.append(.literal(text.isEmpty ? "'" : text))
                i = j + 1
            } else if c.isLetter, c.isASCII {
                var n = 1
                while i + n < chars.count, chars[i + n] == c { n += 1 }
                out.append(.field(c, n))
                i += n
            } else {
                out.append(.literal(String(c)))
                i += 1
            }
        }
        tokens = out
    }

    public func string(from date: Date) -> String {
        let instant = Int(date.timeIntervalSince1970.rounded(.down))
        let seconds = instant + zone.secondsFromGMT(at: instant)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
        let hour = secondOfDay / 3600
        let minute = secondOfDay / 60 % 60
        let second = secondOfDay % 60
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return s.count >= n ? s : String(repeating: "0", count: n - s.count) + s
        }
        var out = ""
        for t in tokens {
            switch t {
            case .literal(let s): out += s
            case .field(let c, let n):
                switch c {
                case "y": out += n == 2 ? pad(year % 100, 2) : pad(year, n)
                case "M", "L":
                    out += n >= 4 ? Self.months[month - 1] : n == 3 ? String(Self.months[month - 1].prefix(3)) : pad(month, n)
                case "d": out += pad(day, n)
                case "E", "e", "c": out += n >= 4 ? Self.days[weekday] : String(Self.days[weekday].prefix(3))
                case "H": out += pad(hour, n)
                case "k": out += pad(hour == 0 ? 24 : hour, n)
                case "h": out += pad(hour % 12 == 0 ? 12 : hour % 12, n)
                case "K": out += pad(hour % 12, n)
                case "m": out += pad(minute, n)
                case "s": out += pad(second, n)
                case "a": out += hour < 12 ? "AM" : "PM"
                default: out += String(repeating: String(c), count: n)
                }
            }
        }
        return out
    }
}
