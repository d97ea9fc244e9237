// swift-tools-version:6.0
// An example service, its own package so that library users never build Hummingbird:
// a REST API over ManagedRecord, run by a ServiceLifecycle ServiceGroup (docs/servers.md).
import PackageDescription

let package = Package(
    name: "TodoService",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "todo-service", targets: ["TodoServer"]),
    ],
    dependencies: [
        // The repository this example lives in.
        .package(name: "ManagedRecord", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Tests only: a real HTTP client against the server on 127.0.0.1, and NIO's byte buffers.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // The service: model, routes, error mapping, configuration and the store's Service wrapper.
        .target(
            name: "TodoService",
            dependencies: [
                .product(name: "ManagedRecord", package: "ManagedRecord"),
                .product(name: "ObjectGraphPostgres", package: "ManagedRecord"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `todo-service`: reads the configuration from the environment and runs the service group.
        .executableTarget(
            name: "TodoServer",
            dependencies: ["TodoService", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "TodoServiceTests",
            dependencies: [
                "TodoService",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
