extension PersistentContainer {
    /// How a container opens its store.
    ///
    /// For example, an archive in a folder the process cannot write:
    ///
    /// ```swift
    /// let archive = try PersistentContainer(name: "Company", entities: entities, storeURL: url, options: [.readOnly])
    /// let people = try archive.viewContext.fetch(FetchRequest<Employee>())   // reads work
    /// try archive.viewContext.save()   // with changes: throws StoreError .readOnly, changes stay pending
    /// ```
    public struct Options: OptionSet, Sendable, Hashable {
        /// The options as bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Open the store for reading only (`SQLITE_OPEN_READONLY`): nothing is ever written,
        /// not even the journal mode, a migration, `Z_METADATA` or `Z_PRIMARYKEY`. Works on a
        /// store in a folder that cannot be written, and on a file that cannot be written.
        /// The store must exist and fit the model as it is; a save or batch request that
        /// would write throws ``StoreError`` `.readOnly` before touching the file.
        public static let readOnly = Options(rawValue: 1 << 0)

        /// Let a migration drop entities, attributes and relationships that the model no
        /// longer has, with the values the store holds for them, as Core Data's inferred
        /// mapping does. Without it, a migration that would drop data throws
        /// ``MigrationError`` `.wouldDropData` listing what and how many rows, and changes
        /// nothing: a model that left an entity out by mistake must not empty its table.
        /// Not needed for a model file whose earlier version wrote the store (its versions
        /// declare the removal), nor for entities and columns that hold no values.
        ///
        /// ```swift
        /// // Version 2 removes Department on purpose.
        /// let container = try PersistentContainer(name: "Company", model: v2, storeURL: url, options: [.allowsDroppingData])
        /// ```
        public static let allowsDroppingData = Options(rawValue: 1 << 1)

        /// Create the store's files and folders with the process umask, as SQLite and
        /// `mkdir` do by themselves (usually `0644` and `0755`: every local user may read
        /// them). Without it, every file the library creates for a store (the store, its
        /// `-wal`, `-shm` and `-journal`, migration copies, backups) is `0600` and every
        /// folder it creates `0700`, whatever the umask; and opening an existing store that
        /// other users may read logs a warning once per path (see docs/security.md). Files
        /// and folders that exist are never changed either way.
        ///
        /// ```swift
        /// // A store a group of users shares on purpose (umask 007: 0660 files).
        /// let container = try PersistentContainer(name: "Shared", model: model, storeURL: url, options: [.keepsProcessUmask])
        /// ```
        public static let keepsProcessUmask = Options(rawValue: 1 << 2)

        /// Record Core Data's persistent history (`NSPersistentHistoryTrackingKey`): every save
        /// and batch request also writes, in the same database transaction, one `ATRANSACTION` row
        /// (time, the context's ``ManagedObjectContext/transactionAuthor`` and name, the
        /// process) and one `ACHANGE` row per inserted, updated and deleted object. Read it
        /// with ``PersistentContainer/history(after:)``, prune it with
        /// ``PersistentContainer/deleteHistory(before:)``. On a SQLite file the container also
        /// watches for other processes' commits and merges them into its contexts like its own
        /// saves (docs/history.md). A store that already has the tables (a store from an
        /// Apple device with history tracking) records history whether or not this is set.
        /// A PostgreSQL store records the same tables in its schema, numbered in commit order
        /// across machines; other machines' commits reach it through `LISTEN`/`NOTIFY` as
        /// without history (docs/history.md, "On PostgreSQL").
        ///
        /// ```swift
        /// let container = try PersistentContainer(name: "Company", entities: entities, storeURL: url, options: [.persistentHistory])
        /// container.viewContext.transactionAuthor = "importer"
        /// ```
        public static let persistentHistory = Options(rawValue: 1 << 3)

        /// Do not watch a SQLite store's file for commits made through other connections
        /// (another process, or another container in this process). By default a container
        /// looks at the file every 100 ms (`PRAGMA data_version`, one cheap query) and brings
        /// its contexts up to date: from the persistent history when the store records it,
        /// otherwise by refreshing what they hold, as after a lost PostgreSQL notification
        /// (docs/observation.md). With this option nothing is looked at and nothing is
        /// refreshed by itself: contexts see other connections' commits at their next fetch,
        /// and registered objects keep their values until refreshed. For a process that is
        /// its store's only writer, or a test that must decide when merges happen. No effect
        /// on a PostgreSQL store, whose commits arrive through `LISTEN`.
        ///
        /// ```swift
        /// let batchJob = try PersistentContainer(name: "Company", entities: entities, storeURL: url, options: [.ignoresOtherConnections])
        /// ```
        public static let ignoresOtherConnections = Options(rawValue: 1 << 4)
    }
}
