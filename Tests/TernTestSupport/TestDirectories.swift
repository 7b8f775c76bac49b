import Foundation

/// A new empty directory under the temporary directory, mode 0700 as ternd asks of a data
/// directory (otherwise every server started on it logs its warning).
public func makeTempDirectory() -> String {
    let dir = NSTemporaryDirectory() + "tern-test-" + UUID().uuidString
    try? FileManager.default.createDirectory(
        atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return dir
}

/// A server a test starts and must stop whatever happens.
public protocol StoppableServer: Sendable {
    func stop() async
}

/// Runs `body` with a started `server` and always stops it, whether `body` returns or throws.
public func running<Server: StoppableServer, T>(_ server: Server, _ body: (Server) async throws -> T) async throws -> T {
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
