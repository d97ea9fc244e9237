import Foundation

/// A Core Data-layout store in a PostgreSQL database: the tables of ``StoreLayout`` (with
/// PostgreSQL's column types) in a schema of their own, reached through a
/// ``DatabaseServerDriver``.
///
/// Thread-safe: every call takes a connection of the driver's pool for its duration (a
/// transaction for writes), so reads and saves of several threads, processes and machines
/// run side by side; the server's row locks, optimistic locking (`Z_OPT`) and the unique
/// indexes of uniqueness constraints keep them apart.
final class PostgresStore: PersistentStore, @unchecked Sendable {  // mutable state behind `state`
    /// The server URL without a password (``DatabaseServerLocation/redacted(_:)``; the
    /// `schema` option kept).
    let url: URL?
    let model: ManagedObjectModel
    let layout: StoreLayout
    let identity: StoreIdentity
    let isReadOnly: Bool
    /// Decimals in `numeric` columns, exactly.
    var decimalStorage: DecimalStorage { .exact }
    let driver: any DatabaseServerDriver
    /// The PostgreSQL schema holding the tables (a plain lower-case identifier).
    let schema: String
    /// What this store's commits carry in their notifications so it can ignore its own.
    let senderID = UUID().uuidString.lowercased()
    /// The functions and collations of the schema (see ``PostgresSchema``).
    let functions: PostgresFunctions
    /// The history tables' columns when saves record persistent history (PostgresStore+History).
    let history = Locked<HistorySchema?>(nil)

    private struct State {
        var trace: (@Sendable (String) -> Void)?
        var closed = false
    }
    private let state = Locked(State())

    var trace: (@Sendable (String) -> Void)? {
        get { state.withLock { $0.trace } }
        set { state.withLock { $0.trace = newValue } }
    }

    /// The channel of this store's change notifications (`LISTEN`/`NOTIFY`).
    var channel: String { "og_changes_\(schema)" }

    /// Opens the store in the database at `location` (creating the schema and its tables on
    /// first use), migrating a schema of another model version with `migrator` (refusing it
    /// without one) and refusing a schema that does not fit `model`.
    init(model: ManagedObjectModel, location: DatabaseServerLocation, readOnly: Bool, migrator: PostgresMigrator? = nil) throws {
        let (serverURL, schema, displayURL) = try Self.parse(location.url)
        self.model = model
        self.url = displayURL
        self.schema = schema
        self.isReadOnly = readOnly
        driver = try location.connect(serverURL)
        do {
            let opened = try PostgresSchema(model: model, schema: schema, url: displayURL, migrator: migrator).open(driver: driver, readOnly: readOnly)
            layout = opened.layout
            functions = opened.functions
            identity = StoreIdentity.of(uuid: opened.metadata.uuid, model: model)
        } catch {
            driver.close()
            throw error
        }
    }

    /// The URL the driver connects to (without `schema`), the schema, and the URL errors name.
    private static func parse(_ url: URL) throws -> (URL, String, URL) {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw StoreError(.cannotOpen, url: nil, "the server store URL cannot be read as a URL")
        }
        var schema = "coredata"
        var items = components.queryItems ?? []
        if let index = items.firstIndex(where: { $0.name == "schema" }) {
            schema = items[index].value ?? ""
            items.remove(at: index)
        }
        // Without its password, wherever it is (DatabaseServerLocation.redacted).
        let displayURL = URL(string: DatabaseServerLocation.redacted(url)) ?? URL(string: "postgres:")!
        let valid = schema.first.map { $0.isLetter || $0 == "_" } ?? false
            && schema.count <= 40
            && schema.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        guard valid, schema.unicodeScalars.allSatisfy(\.isASCII) else {
            throw StoreError(.cannotOpen, url: displayURL, "the schema option '\(schema)' is not a plain PostgreSQL name: use up to 40 lower-case letters, digits and underscores, starting with a letter or underscore (?schema=coredata)")
        }
        components.queryItems = items.isEmpty ? nil : items
        guard let serverURL = components.url else {
            throw StoreError(.cannotOpen, url: displayURL, "the server store URL cannot be rebuilt without its schema option")
        }
        return (serverURL, schema, displayURL)
    }

    func close() {
        let wasOpen = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if wasOpen { driver.close() }
    }

    /// Drops the store's schema with every table, function and row in it, then closes the
    /// store. Other processes still open on it get errors from the server (no such table)
    /// until they open it again, which creates it anew.
    func destroy() throws {
        if isReadOnly {
            throw StoreError(.readOnly, url: url, "the store was opened read-only (options: [.readOnly]), so it is not deleted; open it without .readOnly to delete it")
        }
        _ = try session { try $0.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        close()
    }

    // MARK: Sessions

    private var closedError: StoreError {
        StoreError(.closed, url: url, "the store was closed; open the container again")
    }

    /// Runs `body` on one connection whose search path is the store's schema; statements
    /// with parameters may use `?` placeholders (numbered `$1`, `$2`... before they are sent).
    ///
    /// A pooled connection the server dropped while it was idle fails its first statement
    /// (setting the search path) with `.connectionLost` before `body` ran: the call is then
    /// made once more on a new connection. A connection lost once `body` runs is reported.
    func session<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let trace = try state.withLock { state -> (@Sendable (String) -> Void)? in
            if state.closed { throw closedError }
            return state.trace
        }
        var retried = false
        while true {
            var started = false
            do {
                return try driver.withSession { connection in
                    let session = PostgresSession(connection: connection, trace: trace)
                    try session.execute("SET search_path TO \(schema)")
                    started = true
                    return try body(session)
                }
            } catch let error as StoreError where error.code == .connectionLost && !started && !retried {
                retried = true
            }
        }
    }

    /// Runs `body` in a transaction (committed when it returns, rolled back when it throws).
    func transaction<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try session { session in
            try session.execute("BEGIN")
            let result: T
            do {
                result = try body(session)
            } catch {
                _ = try? session.execute("ROLLBACK")
                throw error
            }
            try session.execute("COMMIT")
            return result
        }
    }

    /// Refuses a write on a store opened read-only.
    func checkWritable() throws {
        if isReadOnly {
            throw StoreError(.readOnly, url: url, "the store was opened read-only (options: [.readOnly]), so nothing was written and the changes stay pending; open it without .readOnly to save")
        }
    }
}

/// One connection of a ``PostgresStore``: traces statements, numbers `?` placeholders.
struct PostgresSession {
    let connection: any DatabaseServerSession
    let trace: (@Sendable (String) -> Void)?

    func query(_ sql: String, _ parameters: [SQLValue] = [], _ row: ([SQLValue]) throws -> Void) throws {
        let text = parameters.isEmpty ? sql : Self.numbered(sql)
        trace?(text)
        try connection.query(text, parameters, row)
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        let text = parameters.isEmpty ? sql : Self.numbered(sql)
        trace?(text)
        return try connection.execute(text, parameters)
    }

    func rows(_ sql: String, _ parameters: [SQLValue] = []) throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try query(sql, parameters) { rows.append($0) }
        return rows
    }

    /// The upper-case names of the columns of `table` in `schema` (the session's schema, its
    /// search path, when nil); empty when there is no such table.
    func columnNames(of table: String, in schema: String? = nil) throws -> Set<String> {
        Set(try rows("SELECT upper(column_name) FROM information_schema.columns WHERE table_schema = coalesce(lower(?), current_schema()) AND table_name = lower(?)",
                     [schema.map { .text($0) } ?? .null, .text(table)]).compactMap { $0.first?.textValue })
    }

    /// The IDs in the first two columns (`Z_PK`, `Z_ENT`) of the rows `sql` reads, of
    /// `layout`'s entities in `store`.
    func objectIDs(_ sql: String, _ parameters: [SQLValue], layout: StoreLayout, store: StoreIdentity) throws -> [ObjectID] {
        try rows(sql, parameters).compactMap { row in
            guard let key = row[0].integerValue, let number = row[1].integerValue else { return nil }
            return layout.objectID(key: key, entityNumber: number, store: store)
        }
    }

    /// The first column of the first row, or nil.
    func scalar(_ sql: String, _ parameters: [SQLValue] = []) throws -> SQLValue? {
        var value: SQLValue?
        try query(sql, parameters) { row in if value == nil { value = row.first } }
        return value
    }

    /// `sql` with each `?` outside quotes replaced by `$1`, `$2`, ... in order (the store's
    /// statements are written with `?`, as the SQLite store's are).
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?" && !quoted {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
