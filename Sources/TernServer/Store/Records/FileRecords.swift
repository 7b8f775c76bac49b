import TernProtocol

/// Rows the ``Store`` hands back and the queries it takes: uploaded files (``FileStore``).
/// They are storage-shaped; ``Presenter`` turns them into wire payloads.

/// An uploaded file (or one of its thumbnails), kept encrypted by the ``FileVault``.
public struct FileRecord: Sendable, Equatable {
    public var fileId: String
    /// The channel it was uploaded for: its members may download it.
    public var channelUrl: String
    public var uploaderId: String?
    public var name: String
    public var type: String
    public var size: Int
    public var createdAt: Int64
    /// The thumbnails' payloads (JSON), for the original.
    public var thumbnails: String = "[]"
}
