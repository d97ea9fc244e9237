import Foundation
import ObjectGraph
import PostgresTestSupport
import Testing

/// Persistent history (`options: [.persistentHistory]`) on every kind of store: each save
/// records, in its own transaction, a transaction and its changes in Core Data's tables
/// (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`), read back and pruned through the
/// public API; transaction numbers follow commit order even with several containers (as
/// several processes or machines) saving at once.
@Suite("Persistent history", .onOwnThreads)
struct PersistentHistoryTests {
    private static func historyContainer(_ store: TestStore) throws -> PersistentContainer {
        try PersistentContainer(name: SuiteModel.name, entities: SuiteModel.entities, store: store.location, options: [.persistentHistory])
    }

    /// Runs `sql` on the PostgreSQL store's database (schema `coredata`) with psql.
    private static func psql(_ store: TestStore, _ sql: String) throws -> String {
        try PostgresTestServer.psql("SET search_path TO coredata; " + sql, database: try #require(URL(string: store.processArgument)))
    }

    @Test("A save records its inserts, updates (with the keys written) and deletes, with the author and the context's name", arguments: StoreKind.allCases)
    func recordsInsertsUpdatesAndDeletes(_ kind: StoreKind) throws {
        let began = Date()
        let store = try kind.newStore()
        let container = try Self.historyContainer(store)
        #expect(container.recordsHistory)
        let context = container.viewContext
        context.transactionAuthor = "importer"
        let sales = Department(context: context)
        sales.name = "Sales"
        let ann = Employee(context: context)
        ann.firstName = "Ann"
        ann.department = sales
        let max = Manager(context: context)
        max.firstName = "Max"
        try context.save()
        ann.firstName = "Anne"
        ann.age = 41
        context.delete(max)
        context.transactionAuthor = nil
        try context.save()

        let history = try container.history(after: nil)
        #expect(history.map(\.token.transactionNumber) == [1, 2])
        #expect(history.map(\.author) == ["importer", nil])
        #expect(history.map(\.contextName) == ["StoreSuite.viewContext", "StoreSuite.viewContext"])
        #expect(history.map(\.processID) == [String(ProcessInfo.processInfo.processIdentifier), String(ProcessInfo.processInfo.processIdentifier)])
        // Stamped between the test's start and now (a second's slack for the stores' rounding).
        let now = Date()
        for transaction in history {
            #expect(transaction.timestamp >= began.addingTimeInterval(-1) && transaction.timestamp <= now.addingTimeInterval(1),
                    "stamped at \(transaction.timestamp), between \(began) and \(now)")
        }
        try #require(history.count == 2)
        #expect(history[0].changes.map(\.changeType) == [.insert, .insert, .insert])
        #expect(history[0].changes.map(\.changedObjectID) == [sales.objectID, ann.objectID, max.objectID])
        #expect(history[1].changes.map(\.changeType) == [.update, .delete])
        #expect(history[1].changes.map(\.changedObjectID) == [ann.objectID, max.objectID])
        #expect(history[1].changes.map(\.updatedProperties) == [["age", "firstName"], nil])
        #expect(history[1].changes[1].changedObjectID.entityName == "Manager", "a sub-entity's change names the sub-entity")

        // Another container (another process) on the store opens it without the option: the
        // store has the tables, so it reads the same history and records its saves too.
        let other = try store.container()
        #expect(other.recordsHistory)
        #expect(try other.history(after: nil).map(\.token) == history.map(\.token))
        Department(context: other.viewContext).name = "Legal"
        try other.viewContext.save()
        #expect(try container.history(after: history[1].token).flatMap(\.changes).map(\.changeType) == [.insert])

        if kind == .postgres {
            // Core Data's tables and numbers: the changes name the entities' Z_PRIMARYKEY rows.
            #expect(try Self.psql(store, "SELECT c.ZTRANSACTIONID, c.ZCHANGETYPE, p.Z_NAME, c.ZCOLUMNS IS NULL FROM ACHANGE c JOIN Z_PRIMARYKEY p ON p.Z_ENT = c.ZENTITY ORDER BY c.Z_PK")
                    == "1|0|Department|t\n1|0|Employee|t\n1|0|Manager|t\n2|1|Employee|f\n2|2|Manager|t\n3|0|Department|t")
            #expect(try Self.psql(store, "SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT > 16000 ORDER BY Z_ENT")
                    == "16001|CHANGE|6\n16002|TRANSACTION|3\n16003|TRANSACTIONSTRING|4")
            #expect(try Self.psql(store, "SELECT coalesce(a.ZNAME, '-') FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS ORDER BY t.Z_PK") == "importer\n-\n-",
                    "strings are interned in ATRANSACTIONSTRING")
            #expect(try Self.psql(store, "SELECT count(*) FROM ATRANSACTIONSTRING") == "4", "each string stored once")
        }
    }

    @Test("Batch updates and deletes record their changes, with the context's author and name", arguments: StoreKind.allCases)
    func batchRequestsRecordTheirChanges(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try Self.historyContainer(store)
        let context = container.viewContext
        let names = ["A", "B", "C"]
        let departments = names.map { name in
            let department = Department(context: context)
            department.name = name
            return department
        }
        try context.save()
        context.transactionAuthor = "janitor"
        _ = try context.execute(BatchUpdateRequest(Department.self, predicate: try FetchPredicate("name != 'C'"), propertiesToUpdate: ["budget": Decimal(5)]))
        _ = try context.execute(BatchDeleteRequest(Department.self, predicate: try FetchPredicate("name == 'A'")))
        let history = try container.history(after: nil)
        try #require(history.count == 3)
        #expect(Set(history[1].changes.map(\.changedObjectID)) == [departments[0].objectID, departments[1].objectID])
        #expect(history[1].changes.map(\.changeType) == [.update, .update])
        #expect(history[1].changes.map(\.updatedProperties) == [["budget"], ["budget"]])
        #expect(history[2].changes.map(\.changeType) == [.delete])
        #expect(history[2].changes.map(\.changedObjectID) == [departments[0].objectID])
        #expect(history.map(\.author) == [nil, "janitor", "janitor"], "a batch request is recorded under its context's author, as a save is")
        #expect(history[1].contextName == context.name && history[2].contextName == context.name && !context.name.isEmpty)
    }

    @Test("Tokens are Codable and read only later transactions; a date reads those committed after it", arguments: StoreKind.allCases)
    func tokensAndDates(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try Self.historyContainer(store)
        let context = container.viewContext
        for name in ["A", "B", "C"] {
            Department(context: context).name = name
            try context.save()
            if name == "A" { Thread.sleep(forTimeInterval: 0.05) }
        }
        let all = try container.history(after: nil)
        try #require(all.count == 3)
        let decoded = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(all[0].token))
        #expect(decoded == all[0].token)
        #expect(try container.history(after: decoded).map(\.token) == [all[1].token, all[2].token])
        #expect(try container.history(after: all[2].token).isEmpty)
        #expect(try container.history(after: all[0].timestamp.addingTimeInterval(0.01)).map(\.token) == [all[1].token, all[2].token])
        #expect(try container.currentHistoryToken() == all[2].token)
        let foreign = HistoryToken(storeIdentifier: "another store", transactionNumber: 1)
        #expect {
            try container.history(after: foreign)
        } throws: { ($0 as? HistoryError)?.code == .otherStore }
    }

    @Test("Deleting history before a token removes those transactions with their changes; numbering goes on after them", arguments: StoreKind.allCases)
    func pruningKeepsTheTablesConsistent(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try Self.historyContainer(store)
        let context = container.viewContext
        var departments: [Department] = []
        for name in ["A", "B", "C", "D"] {
            let department = Department(context: context)
            department.name = name
            departments.append(department)
            try context.save()
        }
        departments[0].budget = 10
        try context.save()
        let all = try container.history(after: nil)
        try #require(all.count == 5)
        #expect(try container.deleteHistory(before: all[2].token) == 3)
        #expect(try container.history(after: nil).map(\.token) == [all[3].token, all[4].token])
        #expect(throws: HistoryError.self, "a reader whose token was pruned past is told, not given what is left") {
            try container.history(after: all[0].token)
        }
        #expect(try container.history(after: all[2].token).map(\.token) == [all[3].token, all[4].token], "nothing after the pruning's token is gone")
        #expect(try container.history(after: nil).allSatisfy { !$0.changes.isEmpty }, "every transaction left has its changes")

        // Everything pruned: the next transaction still comes after the last one (a token
        // never goes back).
        #expect(try container.deleteHistory(before: all[4].token) == 2)
        #expect(try container.currentHistoryToken() == all[4].token, "the last number handed out, though pruned")
        departments[1].budget = 20
        try context.save()
        #expect(try container.history(after: all[4].token).map(\.token.transactionNumber) == [6])
        #expect(try container.deleteHistory(before: Date().addingTimeInterval(60)) == 1)
        #expect(try container.history(after: nil).isEmpty)
        if kind == .postgres {
            #expect(try Self.psql(store, "SELECT (SELECT count(*) FROM ACHANGE) || '/' || (SELECT count(*) FROM ATRANSACTION)") == "0/0",
                    "no change outlives its transaction")
        }
    }

    /// Issue 38, item 3: pruning up to transaction 4 and reading after 2 returned 5 alone,
    /// with no error (3 and 4 missing).
    @Test("A token older than the pruning reads .expiredToken (Core Data's NSPersistentHistoryTokenExpiredError), never a partial list", arguments: StoreKind.allCases)
    func prunedPastTokensAreExpired(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try Self.historyContainer(store)
        let context = container.viewContext
        for name in ["A", "B", "C", "D", "E"] {
            Department(context: context).name = name
            try context.save()
        }
        let all = try container.history(after: nil)
        try #require(all.map(\.token.transactionNumber) == [1, 2, 3, 4, 5])
        #expect(try container.deleteHistory(before: all[3].token) == 4)
        let error = #expect(throws: HistoryError.self) { try container.history(after: all[1].token) }
        #expect(error?.code == .expiredToken)
        #expect(error?.message.contains("2 of the 3 transactions after transaction 2 are gone (the oldest transaction left is 5)") == true, "\(String(describing: error))")
        #expect(error?.message.contains("history(after: nil)") == true, "it says what to do")
        // Another container (another process) reading with a kept token is told the same.
        let other = try store.container()
        let kept = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(all[0].token))
        #expect((#expect(throws: HistoryError.self) { try other.history(after: kept) })?.code == .expiredToken)
        #expect(try container.history(after: all[3].token).map(\.token) == [all[4].token], "a token at the pruning's edge reads on")
        #expect(try container.history(after: nil).map(\.token) == [all[4].token], "nil reads what is left")

        #expect(try container.deleteHistory(before: all[4].token) == 1)
        #expect(try container.currentHistoryToken() == all[4].token)
        #expect(try container.history(after: all[4].token).isEmpty)
        #expect((#expect(throws: HistoryError.self) { try container.history(after: all[3].token) })?.code == .expiredToken)
        let future = HistoryToken(storeIdentifier: all[0].token.storeIdentifier, transactionNumber: 9)
        let past = #expect(throws: HistoryError.self, "a token past the last transaction (a store restored or recreated under it)") {
            try container.history(after: future)
        }
        #expect(past?.code == .expiredToken)
        #expect(past?.message.contains("ends at transaction 5") == true, "\(String(describing: past))")
        Department(context: context).name = "F"
        try context.save()
        #expect(try container.history(after: all[4].token).map(\.token.transactionNumber) == [6])
    }

    @Test("Two containers saving at once: a reader polling with tokens reads every transaction exactly once", arguments: StoreKind.allCases)
    func concurrentSaversNumberInCommitOrder(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let savers = [try Self.historyContainer(store), try Self.historyContainer(store)]
        let reader = try Self.historyContainer(store)
        let saves = 40
        let failures = Locked<[String]>([])
        let finished = Locked(0)
        let readerRead = Locked(false)
        for (index, container) in savers.enumerated() {
            Thread.detachNewThread {
                let context = container.newBackgroundContext()
                context.transactionAuthor = "saver\(index)"
                context.performAndWait {
                    do {
                        let department = Department(context: context)
                        department.name = "D\(index)"
                        try context.save()
                        for save in 1..<saves {
                            // Half-way, each saver waits until the reader has read some
                            // transactions: so the reader reads while the others are still
                            // saving, by construction rather than by the timing of threads.
                            if save == saves / 2 && !readerRead.wait(until: { $0 }) {
                                failures.withLock { $0.append("saver \(index): the reader read nothing within two minutes") }
                            }
                            department.budget = Decimal(save)
                            if save % 3 == 0 { Project(context: context).title = "P\(index).\(save)" }
                            try context.save()
                        }
                    } catch {
                        failures.withLock { $0.append("saver \(index): \(error)") }
                    }
                }
                finished.withLock { $0 += 1 }
            }
        }
        var token: HistoryToken?
        var seen: [Int64] = []
        var readWhileSaving = false
        func poll() throws {
            let transactions = try reader.history(after: token)
            seen += transactions.map(\.token.transactionNumber)
            if let last = transactions.last { token = last.token }
            if !seen.isEmpty && finished.value < savers.count && !readWhileSaving {
                readWhileSaving = true
                readerRead.withLock { $0 = true }
            }
        }
        let deadline = Date().addingTimeInterval(120)
        while finished.value < savers.count && Date() < deadline {
            try poll()
            usleep(2_000)
        }
        try poll()
        #expect(failures.value.isEmpty, "\(failures.value)")
        #expect(finished.value == savers.count, "the savers finished within two minutes")
        let all = try reader.history(after: nil)
        #expect(all.count == saves * savers.count)
        #expect(seen == all.map(\.token.transactionNumber), "every transaction read exactly once, in order, though read while others committed")
        #expect(Set(seen).count == seen.count)
        #expect(readWhileSaving, "the reader read transactions while the savers were still saving")
        #expect(all.map(\.token.transactionNumber) == Array(1...Int64(saves * savers.count)), "numbered one after the other")
        for index in savers.indices {
            let mine = all.filter { $0.author == "saver\(index)" }
            #expect(mine.count == saves, "saver \(index)'s transactions carry its author")
            #expect(mine.allSatisfy { !$0.changes.isEmpty })
        }
    }
}
