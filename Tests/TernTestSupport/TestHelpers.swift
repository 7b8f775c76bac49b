/// A test's own failure, with what went wrong: `throw TestFailure("login of alice failed")`.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A deterministic random number generator (xorshift), so a fuzz or property test replays the
/// same inputs from the same seed:
///
/// ```swift
/// var rng = SeededGenerator(seed: 42)
/// let n = Int.random(in: 0..<10, using: &rng)
/// ```
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}
