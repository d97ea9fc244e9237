import Foundation

/// Why a persistent-history request could not be answered. Nothing was changed.
public struct HistoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The store records no history: it has no `ATRANSACTION` table. Open it once with
        /// `options: [.persistentHistory]` (not read-only) to start recording.
        public static let notRecorded = Code(name: "notRecorded")
        /// The token belongs to another store (its UUID differs).
        public static let otherStore = Code(name: "otherStore")
        /// Transactions after the token are gone: ``PersistentStoreCoordinator/deleteHistory(before:)-(HistoryToken)``
        /// (or by date) pruned some of them, or the store was restored from a backup
        /// (``PersistentContainer/restore(storeAt:from:options:progress:)``, which expires every
        /// token taken before it), or the token names a transaction past the store's last. Reading
        /// on would miss changes, so nothing is returned: read the history again from the
        /// start (`history(after: nil)`), rebuild what was derived from it, and keep the new
        /// last token. Core Data's `NSPersistentHistoryTokenExpiredError`.
        public static let expiredToken = Code(name: "expiredToken")
        /// The store kind records no history (both SQLite and PostgreSQL stores do).
        public static let unsupportedStore = Code(name: "unsupportedStore")
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// What happened and what to do, for a person.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HistoryError.\(code): \(message)" }
}

extension HistoryError {
    static let unsupportedStoreKind = HistoryError(.unsupportedStore, "this kind of store records no persistent history (options: [.persistentHistory]); SQLite and PostgreSQL stores do")
}
