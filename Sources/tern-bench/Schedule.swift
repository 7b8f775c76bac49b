/// The fixed open-loop schedule: `senders` members each send every `senders / rate` seconds,
/// sender `i` starting `i / rate` seconds after the common start, so the channel as a whole gets
/// one message every `1 / rate` seconds. Times are nanoseconds relative to the start.
struct Schedule: Sendable {
    let members: Int
    /// Nodes of a cluster the members are spread over (member `i` on node `i mod nodes`).
    var nodes = 1
    func node(of member: Int) -> Int { member % nodes }
    let senders: Int
    /// Messages per second, all senders together.
    let rate: Double
    let warmupNs: UInt64
    let durationNs: UInt64
    let payloadBytes: Int

    var totalNs: UInt64 { warmupNs + durationNs }
    var intervalNs: Double { Double(senders) * 1e9 / rate }

    /// When message `seq` of `sender` is due, relative to the start.
    func due(sender: Int, seq: Int) -> UInt64 {
        UInt64(Double(sender) * 1e9 / rate + Double(seq) * intervalNs)
    }

    /// How many messages `sender` sends over warm-up plus the measured window.
    func count(sender: Int) -> Int {
        var n = 0
        while due(sender: sender, seq: n) < totalNs { n += 1 }
        return n
    }

    /// Whether a message due at `rel` falls in the measured window (after warm-up).
    func isMeasured(_ rel: UInt64) -> Bool { rel >= warmupNs && rel < totalNs }
}
