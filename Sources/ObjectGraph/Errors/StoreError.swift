import Foundation

/// A store that cannot be opened, created or used: not a database, not a Core Data store,
/// a model that does not match, a location that cannot be written.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The file is not a SQLite database (or is corrupt).
        public static let notADatabase = Code(name: "notADatabase")
        /// The database has tables but no Core Data metadata.
        public static let notACoreDataStore = Code(name: "notACoreDataStore")
        /// The store's schema does not fit the model and cannot be migrated automatically.
        public static let incompatibleModel = Code(name: "incompatibleModel")
        /// The store or its folder cannot be created or written.
        public static let cannotOpen = Code(name: "cannotOpen")
        /// The store was closed (or deleted) and can no longer be used.
        public static let closed = Code(name: "closed")
        /// The store's metadata cannot be read.
        public static let corruptMetadata = Code(name: "corruptMetadata")
        /// The store was opened with ``PersistentContainer/Options/readOnly`` and the call
        /// would write (a save, a batch request, or a migration the model needs).
        public static let readOnly = Code(name: "readOnly")
        /// The store file exists but this process may not write it (its permissions, an
        /// immutable attribute, a read-only file system).
        public static let readOnlyFile = Code(name: "readOnlyFile")
        /// The store's folder cannot be written, and SQLite must create the `-wal` and `-shm`
        /// files (or the store itself) there.
        public static let readOnlyFolder = Code(name: "readOnlyFolder")
        /// The store path names a directory, not a file.
        public static let isADirectory = Code(name: "isADirectory")
        /// This process may not read the store file, or reach its folder.
        public static let permissionDenied = Code(name: "permissionDenied")
        /// Another connection (usually another process) held a lock on the store for longer
        /// than SQLite's busy timeout.
        public static let locked = Code(name: "locked")
        /// A row of the store contradicts the model (an object of one entity stored in
        /// another entity's table): the file was changed by a program that is not Core Data.
        public static let corruptRow = Code(name: "corruptRow")
        /// The store does not describe its model (it was written by Apple's Core Data, or
        /// before ManagedRecord kept the model in the store) and no model was given.
        public static let noModel = Code(name: "noModel")
        /// A database server cannot be reached, or refused the connection or the login.
        public static let connectionFailed = Code(name: "connectionFailed")
        /// The database server did not answer within the timeout.
        public static let timeout = Code(name: "timeout")
        /// The connection to the database server broke while a statement ran; the server
        /// rolled back a transaction under way, and the next call connects again.
        public static let connectionLost = Code(name: "connectionLost")
        /// The database server refused a statement (``DatabaseServerError`` is `underlying`).
        public static let serverError = Code(name: "serverError")
        /// The disk holding the store is full (SQLite's `SQLITE_FULL`).
        public static let diskFull = Code(name: "diskFull")
        /// The operating system reported an I/O error while the store read or wrote
        /// (SQLite's `SQLITE_IOERR`).
        public static let ioError = Code(name: "ioError")
        /// The store's database failed a statement for another reason (the SQLite or server
        /// error is `underlying`).
        public static let databaseError = Code(name: "databaseError")
        public var description: String { name }
    }

    /// What kind of problem it is.
    public let code: Code
    /// The store file or server URL, or nil for an in-memory store.
    public let url: URL?
    /// What went wrong and what to do.
    public let message: String
    /// The error of the store's database behind it, if any: a ``SQLiteError`` for a SQLite
    /// store, a ``DatabaseServerError`` (or the driver's own error) for a server store.
    public let underlying: (any Error & Sendable)?

    /// The SQLite error behind it, when the store is a SQLite store.
    public var sqliteError: SQLiteError? { underlying as? SQLiteError }

    /// An error of `code` about the store at `url` (nil in memory); `message` says what went
    /// wrong and what to do.
    public init(_ code: Code, url: URL?, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.url = url
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        var text = "Store error (\(code)) at \(url?.path ?? "in-memory store"): \(message)"
        if let underlying { text += " [\(underlying)]" }
        return text
    }
}
