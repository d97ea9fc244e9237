import Foundation
import Hummingbird
import Logging
import ManagedRecord
import ObjectGraphPostgres
import ServiceLifecycle
import UnixSignals

/// The whole service: the store (a ``StoreService``) and the HTTP application, run together
/// by one ServiceLifecycle `ServiceGroup`.
///
/// ```swift
/// let app = try TodoApp(configuration: TodoConfiguration(environment: env, arguments: args), logger: logger)
/// try await app.serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint]).run()
/// ```
public struct TodoApp: Sendable {
    /// The container's name: the model's name in the store.
    public static let modelName = "Todos"

    /// The store and its request-scoped contexts.
    public let store: StoreService
    /// The HTTP server.
    public let application: Application<RouterResponder<BasicRequestContext>>
    private let logger: Logger

    /// Opens the store of `configuration` (creating or migrating it) and builds the routes.
    /// `onServerRunning` hears the port the server listens on once it does (the one it was
    /// given, or the one the system chose for port 0).
    ///
    /// - Throws: the library's `StoreError` (or `MigrationError`) when the store cannot be
    ///   opened: nothing is listening then.
    public init(configuration: TodoConfiguration, logger: Logger,
                onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws {
        let container = try Self.openContainer(configuration.store)
        store = StoreService(container: container, logger: logger)
        let router = Router(context: BasicRequestContext.self)
        TodoRoutes(store: store).add(to: router)
        application = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "todo-service"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        self.logger = logger
    }

    /// Opens the container on `store` with the service's model.
    public static func openContainer(_ store: TodoConfiguration.Store) throws -> PersistentContainer {
        switch store {
        case .sqlite(let url):
            return try PersistentContainer(name: modelName, entities: [Todo.self], storeURL: url)
        case .postgres(let url):
            return try PersistentContainer(name: modelName, entities: [Todo.self], store: .postgres(url))
        }
    }

    /// The group that runs the service: the store first and the HTTP server second, so a
    /// graceful shutdown (one of `gracefulShutdownSignals`, or `triggerGracefulShutdown()`)
    /// stops the server first — it takes no new connections and finishes the requests it
    /// has — and then drains and closes the store.
    public func serviceGroup(gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint]) -> ServiceGroup {
        ServiceGroup(configuration: .init(services: [store, application], gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
    }
}
