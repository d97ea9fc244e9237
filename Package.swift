// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ManagedRecord",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "ManagedRecord", targets: ["ManagedRecord"]),
        // The PostgreSQL store (`.postgres(url)`), its own product so SQLite-only users never build NIO.
        .library(name: "ObjectGraphPostgres", targets: ["ObjectGraphPostgres"]),
        .executable(name: "Demo", targets: ["Demo"]),
        .executable(name: "managedrecord", targets: ["ManagedRecordCLI"]),
    ],
    dependencies: [
        // OrderedSet keeps to-many relationships O(1) for membership and ordered for `[T]`.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // SHA-256 for the per-entity and per-model version hashes stored in Z_METADATA.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Logging: swift-log, the convention of Swift on Linux servers.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Command-line parsing for the `managedrecord` tool only (never a library dependency).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // PostgreSQL's wire protocol for the ObjectGraphPostgres product only (docs/stores.md).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // TLS to PostgreSQL (certificates, keys, verification), for ObjectGraphPostgres only.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // One C thread-local the property wrappers read while an object initializes.
        .target(name: "CObjectGraphRuntime"),
        .target(
            name: "ObjectGraph",
            dependencies: [
                "CSQLite",
                "CObjectGraphRuntime",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ManagedRecord",
            dependencies: ["ObjectGraph"]
        ),
        // The driver that carries a PostgreSQL store's statements (ObjectGraph writes the SQL).
        .target(
            name: "ObjectGraphPostgres",
            dependencies: [
                "ObjectGraph",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "Demo",
            dependencies: ["ObjectGraph", "ManagedRecord", "ObjectGraphPostgres"],
            path: "Demo"
        ),
        // `managedrecord`: fetch, count, aggregate, inspect, export and import stores from a shell.
        .executableTarget(
            name: "ManagedRecordCLI",
            dependencies: ["ObjectGraph", "ObjectGraphPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // A user's script (top-level code with `await`s), run and checked by ScriptTests.
        .executableTarget(
            name: "AsyncScriptCheck",
            dependencies: ["ManagedRecord"],
            path: "Tests/Harnesses/AsyncScriptCheck"
        ),
        // Misuses of contexts, each in a process of its own, that must stop with a message.
        .executableTarget(
            name: "ConfinementProbe",
            dependencies: ["ManagedRecord"],
            path: "Tests/Harnesses/ConfinementProbe"
        ),
        // Test-only: a wrapping SQLite VFS that makes the Nth read, write or sync fail.
        .target(
            name: "CFaultInjection",
            dependencies: ["CSQLite"],
            path: "Tests/Harnesses/CFaultInjection"
        ),
        // Reliability harnesses (docs/reliability.md).
        // The crash workload: commits in a loop with a journal; its parent kills and verifies.
        .executableTarget(
            name: "CrashWorkload",
            dependencies: ["ManagedRecord", "ObjectGraphPostgres", "CSQLite", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/Harnesses/CrashWorkload"
        ),
        // The second process of LoadTests, writing the same store.
        .executableTarget(name: "LoadWriter", dependencies: ["ObjectGraph"], path: "Tests/Harnesses/LoadWriter"),
        // libFuzzer targets (built with -sanitize=fuzzer; a plain build replays inputs).
        .target(name: "LibFuzzerDriver", path: "Tests/Harnesses/LibFuzzerDriver"),
        .executableTarget(name: "PredicateFuzzer", dependencies: ["ObjectGraph", "LibFuzzerDriver"], path: "Tests/Harnesses/PredicateFuzzer"),
        .executableTarget(name: "StoreFileFuzzer", dependencies: ["ObjectGraph", "LibFuzzerDriver"], path: "Tests/Harnesses/StoreFileFuzzer"),
        // Test-only: the C allocator's bytes in use, for tests of what an operation keeps.
        .target(name: "CMemoryStats", path: "Tests/Harnesses/CMemoryStats"),
        .testTarget(
            name: "ObjectGraphTests",
            dependencies: ["ObjectGraph", "CFaultInjection", "CMemoryStats"]
        ),
        .testTarget(
            name: "ManagedRecordTests",
            dependencies: ["ManagedRecord"]
        ),
        // Test-only: a real PostgreSQL server from Debian's packages, started on loopback.
        .target(name: "PostgresTestSupport", path: "Tests/Harnesses/PostgresTestSupport"),
        // The PostgreSQL driver against a real server.
        .testTarget(
            name: "ObjectGraphPostgresTests",
            dependencies: ["ObjectGraph", "ObjectGraphPostgres", "PostgresTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // The second and third processes of the suite's two-process test, writing one store.
        .executableTarget(name: "StoreWriter", dependencies: ["ObjectGraph", "ObjectGraphPostgres"], path: "Tests/Harnesses/StoreWriter"),
        // One behavioural suite, run on every kind of store (SQLite and PostgreSQL).
        .testTarget(
            name: "StoreBehaviourTests",
            dependencies: ["ObjectGraph", "ObjectGraphPostgres", "ManagedRecord", "PostgresTestSupport"]
        ),
        // Runs the built `managedrecord` and `Demo` executables as processes.
        .testTarget(
            name: "ManagedRecordCLITests",
            dependencies: ["ObjectGraph", "ObjectGraphPostgres", "PostgresTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
