import Foundation
import ManagedRecord
import ObjectGraphPostgres

/// The store of one round of the staged migration torture: a file in the torture's folder,
/// or, with a PostgreSQL URL, a schema of its own in that database (`notes_<seed>_<round>`),
/// which a PostgreSQL migration changes in one transaction per stage.
struct TortureStore {
    /// How the child is told where the store is: the file's path, or the URL with its schema.
    let argument: String
    let location: PersistentContainer.Location
    private let isServer: Bool

    init(round: Int, seed: UInt64, folder: URL, postgres: URL?) throws {
        guard let postgres else {
            let file = folder.appendingPathComponent("Notes-\(round).sqlite")
            (argument, location, isServer) = (file.path, .file(file), false)
            return
        }
        guard var components = URLComponents(url: postgres, resolvingAgainstBaseURL: false) else {
            throw WorkloadFailure("not a PostgreSQL URL: \(postgres)")
        }
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" }
            + [URLQueryItem(name: "schema", value: "notes_\(seed % 1_000_000)_\(round)")]
        guard let url = components.url else { throw WorkloadFailure("cannot add a schema to \(postgres)") }
        (argument, location, isServer) = (url.absoluteString, .postgres(url), true)
    }

    /// The location `argument` (a child's) names.
    static func location(of argument: String) throws -> PersistentContainer.Location {
        guard argument.hasPrefix("postgres") else { return .file(URL(fileURLWithPath: argument)) }
        guard let url = URL(string: argument) else { throw WorkloadFailure("not a PostgreSQL URL: \(argument)") }
        return .postgres(url)
    }

    /// Whether the store is at `model`'s version: for a file, its metadata says so; for a
    /// schema, it opens read-only with `model` (a read-only open never migrates, and refuses
    /// another version).
    func isAtVersion(_ model: ManagedObjectModel) throws -> Bool {
        guard isServer else {
            guard case .file(let url) = location else { return false }
            return try !PersistentStoreCoordinator.requiresMigration(model: model, storeURL: url)
        }
        do {
            let container = try PersistentContainer(name: "Notes", model: model, location: location, options: [.readOnly])
            container.persistentStoreCoordinator.close()
            return true
        } catch let error as StoreError where error.code == .incompatibleModel {
            return false
        }
    }
}
