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
    ],
    swiftLanguageModes: [.v6]
)
