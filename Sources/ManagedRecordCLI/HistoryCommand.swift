import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord history STORE [--after 42]`: the persistent history's transactions and
/// their changes, oldest first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the persistent history's transactions and their changes (Core Data's ATRANSACTION and ACHANGE).",
        discussion: """
        Each transaction: its number (give it to --after to list only later ones), time, author, context and process; \
        then one line per change: insert, update (with the properties it wrote) or delete, entity and primary key. \
        --enable creates the history tables in a store that has none, so that saves record history from then on.

        EXAMPLES:
          managedrecord history Company.sqlite --enable
          managedrecord history Company.sqlite
          managedrecord history Company.sqlite --after 42
        """)

    @OptionGroup var store: StoreOptions
    @Option(name: .long, help: "List only the transactions after this transaction number.")
    var after: Int64?
    @Flag(name: .long, help: "Create the history tables (the store is written) instead of listing.")
    var enable = false

    func run() throws {
        try reportingErrors {
            if enable {
                // Opened as every command opens a store: one of another model version is refused.
                try store.open(writable: true, options: [.persistentHistory]).container.persistentStoreCoordinator.close()
                Terminal.write("the store records persistent history from now on\n")
                return
            }
            let opened = try store.open()
            let coordinator = opened.container.persistentStoreCoordinator
            let token = after.map { HistoryToken(storeIdentifier: coordinator.storeIdentifier, transactionNumber: $0) }
            let transactions: [HistoryTransaction]
            do {
                transactions = try coordinator.history(after: token)
            } catch let error as HistoryError where error.code == .notRecorded {
                throw CLIError("the store records no persistent history (it has no ATRANSACTION table); run `managedrecord history \(store.display) --enable` to start recording")
            } catch let error as HistoryError where error.code == .expiredToken {
                throw CLIError("the history after transaction \(after ?? 0) is incomplete, so it is not listed (expiredToken): \(error.message). From the tool: run `managedrecord history \(store.display)` without --after to list every transaction left, and start again from its last one")
            }
            var text = ""
            for transaction in transactions { text += Self.describe(transaction) }
            text += "(\(transactions.count) \(transactions.count == 1 ? "transaction" : "transactions"))\n"
            Terminal.write(text)
        }
    }

    /// A transaction's line and its changes' lines.
    static func describe(_ transaction: HistoryTransaction) -> String {
        let time = ISO8601DateFormatter.string(from: transaction.timestamp, timeZone: TimeZone(identifier: "UTC")!,
                                               formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        var parts = ["transaction \(transaction.token.transactionNumber)", time]
        if let author = transaction.author { parts.append("author \(author)") }
        if let context = transaction.contextName { parts.append("context \(context)") }
        if let process = transaction.processID { parts.append("process \(process)\(transaction.bundleID.map { " (\($0))" } ?? "")") }
        var text = parts.joined(separator: "  ") + "\n"
        for change in transaction.changes { text += "  " + describe(change) + "\n" }
        return text
    }

    /// `update Employee p7 [age, firstName]`.
    static func describe(_ change: HistoryChange) -> String {
        var line = "\(change.changeType) \(change.changedObjectID.entityName) p\(change.changedObjectID.primaryKey ?? 0)"
        if let keys = change.updatedProperties { line += " [\(keys.sorted().joined(separator: ", "))]" }
        return line
    }
}
