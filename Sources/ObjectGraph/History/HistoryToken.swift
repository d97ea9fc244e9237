import Foundation

/// A place in a store's persistent history: the transaction a history request continues
/// after (``PersistentStoreCoordinator/history(after:)``) or a pruning stops at
/// (``PersistentStoreCoordinator/deleteHistory(before:)``).
///
/// It carries the store's UUID and the transaction's number (`ATRANSACTION.Z_PK`), so it
/// can be kept as JSON or any `Codable` encoding between runs and handed to another
/// process or task:
///
/// ```swift
/// let data = try JSONEncoder().encode(lastToken)              // {"store":"…","transaction":42}
/// let restored = try JSONDecoder().decode(HistoryToken.self, from: data)
/// let newer = try container.history(after: restored)
/// ```
///
/// Tokens of one store order by transaction; a token of another store is refused by
/// every history request (``HistoryError`` `.otherStore`).
public struct HistoryToken: Sendable, Codable, Hashable, Comparable, CustomStringConvertible {
    /// The UUID of the store whose history this is (`Z_METADATA.Z_UUID`).
    public let storeIdentifier: String
    /// The transaction's number (`ATRANSACTION.Z_PK`): later transactions have larger ones.
    public let transactionNumber: Int64

    /// A token for transaction `transactionNumber` of the store `storeIdentifier` (the
    /// number `managedrecord history` prints).
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    private enum CodingKeys: String, CodingKey {
        case storeIdentifier = "store"
        case transactionNumber = "transaction"
    }

    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool {
        (lhs.storeIdentifier, lhs.transactionNumber) < (rhs.storeIdentifier, rhs.transactionNumber)
    }

    public var description: String { "\(transactionNumber)@\(storeIdentifier)" }
}
