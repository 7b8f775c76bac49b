public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The time zone times are shown in, without ICU for the common case.
///
/// Foundation's `TimeZone.current` asks ICU for the zone's canonical name at its first use, which maps
/// ICU's code and time zone data: 2–3 MiB of tern's resident memory for one UTC offset
/// (docs/benchmarks.md, "Linking tern light"). ``system`` asks libc instead (`localtime_r`: the `TZ`
/// variable, else /etc/localtime), per instant, so daylight saving time is right for every message;
/// ``utc`` is a fixed offset of zero; a named zone (a setting, a test) is Foundation's `TimeZone`.
public struct Zone: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case system
        case fixed(Int)
        case named(TimeZone)
    }
    let kind: Kind

    /// The machine's own zone, through libc.
    public static let system = Zone(kind: .system)
    /// Coordinated universal time.
    public static let utc = Zone(kind: .fixed(0))

    /// Foundation's zone (a named zone: `TimeZone(identifier: "Europe/Paris")`).
    public init(_ timeZone: TimeZone) { kind = .named(timeZone) }

    /// A zone by its IANA name; `UTC` without Foundation's zone machinery. Nil: no such zone.
    public init?(identifier: String) {
        if identifier == "UTC" {
            kind = .fixed(0)
        } else if let zone = TimeZone(identifier: identifier) {
            kind = .named(zone)
        } else {
            return nil
        }
    }

    init(kind: Kind) { self.kind = kind }

    /// Seconds east of UTC at the instant `unixSeconds`.
    public func secondsFromGMT(at unixSeconds: Int) -> Int {
        switch kind {
        case .fixed(let offset): return offset
        case .named(let zone): return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(unixSeconds)))
        case .system:
            #if canImport(Glibc)
            var time = time_t(unixSeconds)
            var parts = tm()
            guard localtime_r(&time, &parts) != nil else { return 0 }
            return Int(parts.tm_gmtoff)
            #else
            return TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(unixSeconds)))
            #endif
        }
    }
}
