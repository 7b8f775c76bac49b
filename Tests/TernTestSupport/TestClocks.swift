import Synchronization
public import TernKit
public import TernServer

/// The wall clock plus an offset a test moves forward (to expire sessions, tokens or timers
/// without waiting): the server's clock (`nowMs`) and the engine's (`now`).
public final class AdjustableClock: ServerClock, EngineClock {
    let offset = Mutex<Int64>(0)

    public init() {}

    public func nowMs() -> Int64 { SystemClock().nowMs() + offset.withLock { $0 } }
    public func now() -> Millis { SystemEngineClock().now() + offset.withLock { $0 } }
    public func advance(seconds: Int64) { advance(seconds * 1000) }
    public func advance(_ ms: Int64) { offset.withLock { $0 += ms } }
}

/// A server clock that stands still unless moved (the open-channel broadcast limit counts per
/// second; changelog tokens compare times).
public final class StillClock: ServerClock {
    let now = Mutex<Int64>(1_800_000_000_000)

    public init() {}

    public func nowMs() -> Int64 { now.withLock { $0 } }
    public func advance(ms: Int64) { now.withLock { $0 += ms } }
}
