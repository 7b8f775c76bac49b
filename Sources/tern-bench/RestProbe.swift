import Foundation

/// `--rest-probe K`: after the run, K calls in turn of each of a few Platform API listing and
/// history calls, timed one by one (wall time of the whole request through URLSession, so the
/// client's own HTTP overhead is included), printed as p50/p99 per call.
enum RestProbe {
    static func run(_ api: PlatformAPI, calls k: Int, channelUrl: String, channelType: ChannelType) async -> [String] {
        let kind = channelType == .open ? "open_channels" : "group_channels"
        let url = channelUrl.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? channelUrl
        let probes: [(name: String, path: () -> String)] = [
            ("history", { "/v3/\(kind)/\(url)/messages?message_ts=\(Int64(Date().timeIntervalSince1970 * 1000))&prev_limit=50" }),
            ("channels", { "/v3/\(kind)?limit=100" }),
            ("users", { "/v3/users?limit=100" }),
        ]
        var lines = ["REST probe, \(k) calls each, one at a time (ms, through URLSession):"]
        for probe in probes {
            var samples: [UInt64] = []
            var statuses: [Int: Int] = [:]
            var failure: String?
            for _ in 0..<k {
                let path = probe.path()
                let t0 = Mono.now()
                do {
                    let status = try await api.get(path)
                    samples.append(Mono.now() - t0)
                    statuses[status, default: 0] += 1
                } catch {
                    failure = "\(error)"
                    break
                }
            }
            samples.sort()
            func q(_ p: Double) -> String {
                guard !samples.isEmpty else { return "n/a" }
                let i = min(samples.count - 1, max(0, Int((p * Double(samples.count)).rounded(.up)) - 1))
                return String(format: "%.3f", Double(samples[i]) / 1e6)
            }
            let status = statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: ", ")
            lines.append(
                "  GET \(probe.path().replacingOccurrences(of: url, with: "{url}"))"
                    .replacingOccurrences(of: #"message_ts=\d+"#, with: "message_ts=<now>", options: .regularExpression))
            lines.append(
                "    p50 \(q(0.5))  p99 \(q(0.99))  max \(samples.last.map { String(format: "%.3f", Double($0) / 1e6) } ?? "n/a") ms"
                    + "  (\(samples.count) calls; status \(status.isEmpty ? "none" : status))" + (failure.map { "; failed: \($0)" } ?? ""))
        }
        return lines
    }
}
