import Synchronization

/// A collection's stream of changes, made when someone first asks for it.
///
/// Until then changes are not kept. An app that reads a collection's state and pages with it but
/// never reads its changes (tern's screen keeps its own) would otherwise hold every change of every
/// channel it opened in the stream's buffer for the whole session. As with Sendbird's collection
/// handler, a listener sees the changes from the moment it listens: subscribe before ``start()``
/// to see the cache's and the server's first pages.
final class ChangeOutlet<Element: Sendable>: Sendable {
    private struct State: ~Copyable {
        var stream: AsyncStream<Element>?
        var continuation: AsyncStream<Element>.Continuation?
        var finished = false
    }

    private let state = Mutex(State())

    /// The one stream (an `AsyncStream` has one reader): made on the first call, the same after.
    var stream: AsyncStream<Element> {
        state.withLock { s in
            if let stream = s.stream { return stream }
            let (stream, continuation) = AsyncStream<Element>.makeStream()
            if s.finished { continuation.finish() } else { s.continuation = continuation }
            s.stream = stream
            return stream
        }
    }

    /// Whether a stream has been asked for (and not finished): changes are kept only then.
    var isListened: Bool { state.withLock { $0.continuation != nil } }

    func yield(_ element: Element) {
        state.withLock { $0.continuation }?.yield(element)
    }

    func finish() {
        let continuation = state.withLock { s in
            s.finished = true
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.finish()
    }
}
