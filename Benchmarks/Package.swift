// swift-tools-version:6.0
import PackageDescription

// The benchmark harness: its own package so the library never depends on GRDB.
// Run from this folder: swift run -c release ManagedRecordBenchmarks
let package = Package(
    name: "ManagedRecordBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "ManagedRecord", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The server table (docs/performance.md): raw postgres-nio and Fluent on PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
    ],
    targets: [
        // The sqlite3 C API for the raw baseline loop (the library's CSQLite is not a product).
        .systemLibrary(
            name: "CSQLiteBench",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "ManagedRecordBenchmarks",
            dependencies: [
                "CSQLiteBench",
                .product(name: "ObjectGraph", package: "ManagedRecord"),
                .product(name: "ManagedRecord", package: "ManagedRecord"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // What translating a #Predicate costs against parsing its format string (docs/performance.md).
        .executableTarget(
            name: "PredicateTranslationCost",
            dependencies: [.product(name: "ObjectGraph", package: "ManagedRecord")]
        ),
        // Instructions per save with and without observers, under callgrind (docs/performance.md).
        .executableTarget(
            name: "ObservationCost",
            dependencies: [.product(name: "ObjectGraph", package: "ManagedRecord")],
            swiftSettings: [.define("OBSERVATION")]
        ),
        // The user's eight workloads on PostgreSQL: raw postgres-nio, Fluent, ManagedRecord (docs/performance.md).
        .executableTarget(
            name: "ServerBenchmarks",
            dependencies: [
                .product(name: "ManagedRecord", package: "ManagedRecord"),
                .product(name: "ObjectGraphPostgres", package: "ManagedRecord"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
