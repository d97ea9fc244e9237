import Foundation

/// One committed save (or batch request) as the persistent history recorded it: who made
/// it, when, and which objects it inserted, updated and deleted. Core Data's
/// `NSPersistentHistoryTransaction`.
public struct HistoryTransaction: Sendable, CustomStringConvertible {
    /// Where this transaction is in the history; pass it to the next
    /// ``PersistentStoreCoordinator/history(after:)`` to read only what came later.
    public let token: HistoryToken
    /// When it was committed.
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``, if it had one.
    public let author: String?
    /// The saving context's name.
    public let contextName: String?
    /// The process's bundle identifier on Apple platforms; the executable's name here.
    public let bundleID: String?
    /// The process that committed it (its process ID, in decimal, when written here).
    public let processID: String?
    /// Its changes, in the order they were recorded. Changes of entities the model does not
    /// have are left out.
    public let changes: [HistoryChange]

    public var description: String {
        let who = [author.map { "author \($0)" }, contextName.map { "context \($0)" }].compactMap { $0 }.joined(separator: ", ")
        return "transaction \(token.transactionNumber) at \(timestamp)\(who.isEmpty ? "" : " (\(who))"): \(changes.count) changes"
    }
}

/// One object's change in a ``HistoryTransaction``. Core Data's `NSPersistentHistoryChange`.
public struct HistoryChange: Sendable, Hashable, CustomStringConvertible {
    /// The changed object (its entity is the object's own, a sub-entity for an object of one).
    public let changedObjectID: ObjectID
    /// Inserted, updated or deleted.
    public let changeType: HistoryChangeType
    /// For an update, the names of the properties the save wrote; nil when the history does
    /// not say (an insert, a delete, a row a batch delete's nullify rule changed, or a bitmap
    /// this model cannot read).
    public let updatedProperties: Set<String>?

    public var description: String {
        var text = "\(changeType) \(changedObjectID)"
        if let updatedProperties { text += " \(updatedProperties.sorted())" }
        return text
    }
}

/// What a ``HistoryChange`` did, with the numbers Core Data stores in `ACHANGE.ZCHANGETYPE`.
public enum HistoryChangeType: Int64, Sendable, Codable, CustomStringConvertible {
    case insert = 0
    case update = 1
    case delete = 2

    public var description: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}
