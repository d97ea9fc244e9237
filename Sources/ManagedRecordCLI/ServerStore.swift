import Foundation
import ObjectGraph
import ObjectGraphPostgres

/// A store in a PostgreSQL database, named by a `postgres://user[:password]@host[:port]/database`
/// STORE argument (`?schema=NAME` for another schema than `coredata`).
///
/// The URL is never shown as given: every message names ``display``, the URL without its
/// password (``DatabaseServerLocation/redacted(_:)``). Without a password in the URL the
/// driver takes `PGPASSWORD`, else the matching line of the password file (`PGPASSFILE`, else
/// `~/.pgpass`, skipped unless it is 0600), as libpq does.
struct ServerStore {
    /// The URL as given (with its `schema` option), for the container.
    let url: URL
    /// The PostgreSQL schema holding the store's tables.
    let schema: String
    /// The URL the driver connects to: without the `schema` option, which the driver refuses.
    let connectionURL: URL

    /// The URL without its password, for every message.
    var display: String { DatabaseServerLocation.redacted(url) }

    /// The database name, the container's name.
    var database: String { String(connectionURL.path.drop { $0 == "/" }) }

    /// Reads `text` as a server store's URL.
    ///
    /// - Throws: ``CLIError`` when it cannot be read as a URL (not shown: it may hold a
    ///   password) or its `schema` option is not a plain PostgreSQL name.
    init(_ text: String) throws {
        guard let url = URL(string: text), var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw CLIError("the PostgreSQL URL cannot be read as a URL (it is not shown: it may hold a password); write it as postgres://user@host:5432/database, with the password in PGPASSWORD or ~/.pgpass")
        }
        var items = components.queryItems ?? []
        var schema = "coredata"
        if let index = items.firstIndex(where: { $0.name == "schema" }) {
            schema = items[index].value ?? ""
            items.remove(at: index)
        }
        let plain = schema.first.map { $0 == "_" || ("a"..."z").contains($0) } ?? false
            && schema.count <= 40 && schema.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        guard plain else {
            throw CLIError("the schema option '\(schema)' of \(DatabaseServerLocation.redacted(url)) is not a plain PostgreSQL name: use up to 40 lower-case letters, digits and underscores, starting with a letter or underscore (?schema=coredata)")
        }
        components.queryItems = items.isEmpty ? nil : items
        self.url = url
        self.schema = schema
        self.connectionURL = components.url ?? url
    }

    /// What the store's `Z_METADATA` says: the model's version hashes and the model the store
    /// keeps (its Xcode `contents` XML, under the key `ManagedRecordModel`, as a SQLite store
    /// written here keeps it; docs/cli.md, section 2).
    struct Metadata {
        var versionHashes: [String: Data]
        var modelContentsXML: String?
    }

    /// Reads the store's metadata over one connection, writing nothing.
    ///
    /// - Throws: ``CLIError`` when the schema holds no store (this tool never creates one) or
    ///   its metadata cannot be read; the driver's ``StoreError`` when the server cannot be
    ///   reached or refuses the login.
    func metadata() throws -> Metadata {
        let driver = try PostgresDriver(url: connectionURL, poolSize: 1)
        defer { driver.close() }
        let plist: Data? = try driver.withSession { session in
            let exists = try session.rows("SELECT to_regclass($1) IS NOT NULL", [.text("\(schema).z_metadata")])
            guard exists.first?.first == .integer(1) else { return nil }
            let rows = try session.rows("SELECT z_plist FROM \(schema).z_metadata ORDER BY z_version LIMIT 1")
            guard case .blob(let data)? = rows.first?.first else { return Data() }
            return data
        }
        guard let plist else {
            throw CLIError("there is no store in the schema \(schema) of \(display) (it has no z_metadata table); this tool never creates one: check the database and the ?schema= option")
        }
        guard let dictionary = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any] else {
            throw CLIError("the metadata of the store in the schema \(schema) of \(display) cannot be read (z_metadata's z_plist is not a property list)")
        }
        return Metadata(versionHashes: dictionary["NSStoreModelVersionHashes"] as? [String: Data] ?? [:],
                        modelContentsXML: dictionary["ManagedRecordModel"] as? String)
    }

    /// The model the store keeps.
    ///
    /// - Throws: ``CLIError`` when it keeps none (give `--model`).
    func model(_ metadata: Metadata) throws -> ManagedObjectModel {
        guard let xml = metadata.modelContentsXML else {
            throw CLIError("the store in the schema \(schema) of \(display) does not describe its model (it was written before ManagedRecord kept the model in a store's metadata); give its model with --model Model.xcdatamodeld")
        }
        // Read as a model file is: a `contents` file in a private temporary folder.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("managedrecord-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("contents")
        try Data(xml.utf8).write(to: file)
        do {
            return try ManagedObjectModel(contentsOf: file)
        } catch {
            throw CLIError("the model kept in the metadata of the store in the schema \(schema) of \(display) cannot be read (\(error)); give its model with --model Model.xcdatamodeld")
        }
    }

    /// Whether `model` is the one the store was written with (its version hashes are the
    /// store's); a store whose metadata records no hashes is taken as fitting (the container
    /// checks its tables).
    static func fits(_ model: ManagedObjectModel, _ metadata: Metadata) -> Bool {
        metadata.versionHashes.isEmpty || metadata.versionHashes == model.entityVersionHashesByName
    }
}
