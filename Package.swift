// swift-tools-version: 6.1
import PackageDescription

#if canImport(Glibc)
import Glibc
#endif

/// How release builds of the client link (docs/benchmarks.md, "Linking tern light"). swiftc links an
/// executable with `-export-dynamic` and as a position-independent executable: tern's ~42,000 public
/// symbols went into its dynamic symbol table, which the loader searches for every symbol of
/// libstdc++, libc and SQLite, and its ~130,000 relative relocations took 3 MB that the loader reads
/// at every start. Without the export, and with the relocations packed (DT_RELR, which lld writes and
/// glibc 2.36 and later reads), a static tern runs in ~9 MiB less, and with the functions it runs placed
/// together in ~7 MiB less again (43 -> 26 MiB after joining 50 channels). Older glibc: gold, no packing.
let lightLink: [LinkerSetting] = {
    var flags = ["-Xlinker", "--no-export-dynamic"]
    #if canImport(Glibc)
    var text = [UInt8](repeating: 0, count: 64)  // "glibc 2.36"
    _ = text.withUnsafeMutableBufferPointer { confstr(Int32(_CS_GNU_LIBC_VERSION), $0.baseAddress, $0.count) }
    let found = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
    let version = found.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    if version.count >= 2, (version[0], version[1]) >= (2, 36) {
        flags += ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
        // The functions a session runs, side by side (scripts/order-file.py wrote the list): a page fault
        // maps up to 64 kB around it, so scattered they kept ~10 MB of their neighbours resident.
        let order = "\(Context.packageDirectory)/scripts/tern.order"
        flags += ["-Xlinker", "--symbol-ordering-file=\(order)", "-Xlinker", "--no-warn-symbol-ordering"]
    }
    #endif
    return [.unsafeFlags(flags, .when(platforms: [.linux], configuration: .release))]
}()

let package = Package(
    name: "Tern",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tern", targets: ["tern"]),
        .executable(name: "ternd", targets: ["ternd"]),
        .executable(name: "tern-bench", targets: ["tern-bench"]),
        .executable(name: "tern-floor", targets: ["tern-floor"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // Wire types only: REST JSON models, the WebSocket frame codec, error codes. Foundation only.
        .target(name: "TernProtocol"),
        // The server: routes, WebSocket gateway, channel hubs, auth, the Store protocol and its SQLite implementation.
        .target(
            name: "TernServer",
            dependencies: [
                "TernProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "CGD",
            ]
        ),
        // The GD image library (thumbnails of uploaded images); only TernServer's Thumbnailer imports it.
        .systemLibrary(name: "CGD", providers: [.apt(["libgd-dev"])]),
        // The client engine: connection, channels, messages, and its offline cache (SQLite through GRDB).
        .target(
            name: "TernKit",
            dependencies: [
                "TernProtocol",
                // The upgrade (WebSocketDialer) and the frame handling (WebSocketConnection) are TernKit's own,
                // on NIOWebSocket: no WSCore, so the client links no ServiceLifecycle or AsyncAlgorithms.
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // UI state, key map, reducer and views into a cell grid. Never calls curses.
        // TernProtocol too: TernKit's API speaks its wire errors (`SendbirdError`, `ErrorCode`), which ErrorText words.
        .target(name: "TernTUI", dependencies: ["TernKit", "TernProtocol", .product(name: "TOMLKit", package: "TOMLKit")]),
        // The ncursesw C shim; only TernTerminal imports it.
        .systemLibrary(name: "CNCursesw", providers: [.apt(["libncursesw5-dev"])]),
        // The thin terminal adapter: the only code that calls ncurses.
        .target(name: "TernTerminal", dependencies: ["TernTUI", "CNCursesw", "CImage", "CHunspell"]),
        // Image previews: libgd decodes, libchafa draws symbols; both loaded with dlopen on the first preview.
        .systemLibrary(name: "CImage", providers: [.apt(["libgd-dev", "libchafa-dev"])]),
        // Spell checking of the input line: Hunspell's C API, loaded with dlopen (no headers needed to build).
        .systemLibrary(name: "CHunspell"),
        .executableTarget(
            name: "ternd",
            dependencies: [
                "TernServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The same light link as tern's (the embedded server runs beside every tern): 50 -> 40 MiB idle.
            linkerSettings: lightLink
        ),
        .executableTarget(
            name: "tern",
            dependencies: [
                // The embedded local server is `ternd serve-embedded`, a process of its own: the client links
                // none of the server (no SQLite server store, libgd, libcurl), so it starts small.
                "TernKit", "TernProtocol", "TernTUI", "TernTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: lightLink
        ),
        .executableTarget(
            name: "tern-bench",
            dependencies: [
                "TernProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The least a terminal chat client does on this stack (WSClient, curses): the baseline tern's
        // start, memory and CPU per line are measured against (scripts/tui-bench.py --client floor).
        .executableTarget(
            name: "tern-floor",
            dependencies: [
                "CNCursesw",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: lightLink  // built as tern is, or it is not tern's floor
        ),
        // Test support shared by the test targets: a real ternd in the test process or as a child process,
        // test clocks, a TCP fault proxy.
        .target(
            name: "TernTestSupport",
            dependencies: [
                "TernServer", "TernKit",
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TernTestSupport"
        ),
        .testTarget(name: "TernProtocolTests", dependencies: ["TernProtocol", "TernTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "TernServerTests",
            dependencies: [
                "TernServer", "TernProtocol", "ternd", "TernTestSupport", "TernKit",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // Fixtures/ (an old release's data directories and the migrations lock) are read from the
            // source tree by path, not bundled.
            exclude: ["Fixtures"],
            resources: [.copy("Python")]
        ),
        // Unit tests of the engine's value types, and the engine against a real in-process ternd.
        .testTarget(
            name: "TernKitTests",
            dependencies: [
                "TernKit", "TernProtocol", "TernServer", "TernTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The real binaries as processes: `tern send` / `tern tail` against `ternd`.
        .testTarget(
            name: "TernEndToEndTests", dependencies: ["tern", "ternd", "TernKit", "TernProtocol", "TernTUI", "TernTerminal", "TernTestSupport"]),
        .testTarget(name: "TernTUITests", dependencies: ["TernTUI", "TernKit", "TernProtocol", "TernTestSupport"], resources: [.copy("Golden")]),
    ]
)

// Imports say what they are: a module is visible only in the files that import it
// (MemberImportVisibility), and an import is internal unless it says `public import`
// (InternalImportsByDefault), as in Hummingbird. CI builds with
// --explicit-target-dependency-import-check error, so an import not declared here fails.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault")]
}
