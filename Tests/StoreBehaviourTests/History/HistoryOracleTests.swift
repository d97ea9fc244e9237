import Foundation
import ObjectGraph
import Testing

/// An entity only the second model version has: opening a store with it is a lightweight
/// migration (the oracle's `migrate` step).
final class OracleNote: ManagedObject {
    @Attribute var text: String = ""
}

/// A model-based test of the persistent history (issue 38): random sequences of saves,
/// batch updates and deletes, pruning by token and by date, reopening, a lightweight
/// migration, and on SQLite backups and restores, made through two containers on one store
/// (as two processes), against a plain reference of which transactions exist
/// (``HistoryReference``). Readers hold tokens (kept as JSON between reads, as an app keeps
/// them) and read now and then, through either container; each read must either return
/// exactly the transactions after its token that the reference holds, once each, in order,
/// with their authors and numbers of changes, or throw `HistoryError.expiredToken` exactly
/// when the reference says some were pruned or a restore came after the token. A read with
/// no token must return every transaction left. Nothing depends on timing: the dates that
/// pruning by date uses are the transactions' own.
///
/// Budget: `HISTORY_ORACLE_SEQUENCES` sequences (default 4) of `HISTORY_ORACLE_STEPS` steps
/// (default 40) per store, from seed `HISTORY_ORACLE_SEED` (default 3_801; sequence i uses
/// seed + i); `HISTORY_ORACLE_SECONDS` stops starting sequences after that long per store;
/// `HISTORY_ORACLE_STORES` (default `sqlite,postgres`). A failure names its seed and step and
/// prints the steps that led to it. docs/reliability.md records the long runs.
@Suite("History oracle", .onOwnThreads)
struct HistoryOracleTests {
    struct Budget {
        var sequences: Int
        var steps: Int
        var seed: UInt64
        var seconds: Double?
        var stores: Set<String>

        /// The defaults, with what the `HISTORY_ORACLE_…` variables say.
        static var fromEnvironment: Budget {
            let settings = LongRunSettings(prefix: "HISTORY_ORACLE_")
            return Budget(sequences: settings.count("SEQUENCES", 4), steps: settings.count("STEPS", 40),
                          seed: settings.seed(3_801), seconds: settings.seconds, stores: settings.stores)
        }
    }

    @Test("Every reader reads each transaction after its token once, in order, or is told its token expired", arguments: StoreKind.allCases)
    func readersNeverSkipATransaction(_ kind: StoreKind) throws {
        let budget = Budget.fromEnvironment
        guard budget.stores.contains(kind.rawValue) else { return }
        let started = Date()
        var totals = HistoryHarness.Counts()
        var sequences = 0
        for index in 0..<budget.sequences {
            if let seconds = budget.seconds, Date().timeIntervalSince(started) > seconds { break }
            let seed = budget.seed + UInt64(index)
            let harness = try HistoryHarness(kind, seed: seed)
            defer { harness.close() }
            do {
                try harness.run(steps: budget.steps)
            } catch let mismatch as HistoryMismatch {
                Issue.record("history oracle, \(kind), seed \(seed) (HISTORY_ORACLE_SEED=\(seed) HISTORY_ORACLE_SEQUENCES=1 to replay), step \(mismatch.step): \(mismatch.message)\nsteps:\n\(harness.log.joined(separator: "\n"))")
                return
            }
            totals.add(harness.counts)
            sequences += 1
        }
        print("history oracle (\(kind)): \(sequences) sequences of \(budget.steps) steps from seed \(budget.seed) in \(Int(Date().timeIntervalSince(started))) s: \(totals)")
        #expect(totals.reads > 0 && totals.transactions > 0, "the sequences read and wrote history")
    }
}

/// A difference between the store and the reference.
struct HistoryMismatch: Error {
    let step: Int
    let message: String
}

/// Which transactions the store's history holds, in order, as the oracle's operations made
/// them: independent of the library's numbers.
struct HistoryReference {
    struct Entry {
        var author: String
        var changes: Int
        var pruned = false
        /// The number and time the store gave it, once a read has seen it (for pruning).
        var token: HistoryToken?
        var timestamp: Date?
    }

    /// Every transaction of the store's present history (pruned ones too), oldest first.
    var entries: [Entry] = []
    /// Restores so far: a token taken before the last one is expired.
    var epoch = 0
    /// The departments (name → budget), to know what each operation changes.
    var departments: [String: Int] = [:]

    var present: [Entry] { entries.filter { !$0.pruned } }
}

/// Where a reader is: at the start (no token), or after the first `read` entries of the
/// reference with `token`, taken in restore epoch `epoch`.
struct OracleReader {
    var token: Data?
    var epoch = 0
    var read = 0
}

/// The store, two containers on it, the readers and the reference; runs random steps.
final class HistoryHarness {
    struct Counts: CustomStringConvertible {
        var steps = 0, transactions = 0, reads = 0, transactionsRead = 0, expired = 0, prunes = 0, backups = 0, restores = 0
        var migrations = 0, refusedRestores = 0

        mutating func add(_ other: Counts) {
            steps += other.steps; transactions += other.transactions; reads += other.reads; transactionsRead += other.transactionsRead
            expired += other.expired; prunes += other.prunes; backups += other.backups; restores += other.restores
            migrations += other.migrations; refusedRestores += other.refusedRestores
        }

        var description: String {
            "\(steps) steps, \(transactions) transactions, \(reads) reads (\(transactionsRead) transactions read, \(expired) expired tokens), \(prunes) prunings, \(backups) backups, \(restores) restores (\(refusedRestores) refused while open), \(migrations) migrations"
        }
    }

    let kind: StoreKind
    let store: TestStore
    private var random: GraphRandom
    private var containers: [PersistentContainer] = []
    private var entities: [ManagedObject.Type] = SuiteModel.entities
    private var reference = HistoryReference()
    private var readers = Array(repeating: OracleReader(), count: 3)
    private var backup: (url: URL, reference: HistoryReference)?
    private var step = 0
    private var nextName = 0
    private var nextValue = 0
    private(set) var counts = Counts()
    private(set) var log: [String] = []

    init(_ kind: StoreKind, seed: UInt64) throws {
        self.kind = kind
        store = try kind.newStore()
        random = GraphRandom(seed: seed)
        try open()
    }

    private func open() throws {
        containers = try (0..<2).map { index in
            let container = try PersistentContainer(name: SuiteModel.name, entities: entities, store: store.location,
                                                    options: kind.containerOptions.union(.persistentHistory))
            container.viewContext.mergePolicy = .mergeByPropertyObjectTrump
            container.viewContext.name = "oracle\(index)"
            return container
        }
    }

    func close() {
        for container in containers { container.persistentStoreCoordinator.close() }
        containers = []
    }

    private func fail(_ message: String) -> HistoryMismatch {
        HistoryMismatch(step: step, message: message)
    }

    func run(steps: Int) throws {
        for index in 0..<steps {
            step = index
            counts.steps += 1
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<22: try insert()
            case 22..<34: try update()
            case 34..<42: try delete()
            case 42..<48: try batchUpdate()
            case 48..<53: try batchDelete()
            case 53..<75: try read(Int.random(in: 0..<readers.count, using: &random))
            case 75..<78: try startFromNow(Int.random(in: 0..<readers.count, using: &random))
            case 78..<85: try prune(byDate: Bool.random(using: &random))
            case 85..<88: try reopen()
            case 88..<90: try migrate()
            case 90..<95: try backUp()
            default: try restore()
            }
        }
        for index in readers.indices { try read(index) }
        try readAll()
    }

    // MARK: Operations that record a transaction (or none, when they change nothing)

    /// A context of either container, reset so it holds nothing stale, with `author`.
    private func context(_ author: String) -> ManagedObjectContext {
        let context = containers[Int.random(in: 0..<containers.count, using: &random)].viewContext
        context.reset()
        context.transactionAuthor = author
        return context
    }

    private func author() -> String {
        "s\(step)"
    }

    private func record(_ author: String, changes: Int) {
        guard changes > 0 else { return }
        counts.transactions += 1
        reference.entries.append(HistoryReference.Entry(author: author, changes: changes))
    }

    private func value() -> Int {
        nextValue += 1
        return nextValue
    }

    private func department(named name: String, in context: ManagedObjectContext) throws -> Department {
        guard let found = try context.fetch(FetchRequest<Department>(predicate: try FetchPredicate("name == %@", name))).first else {
            throw fail("department \(name) of the reference is not in the store")
        }
        return found
    }

    private func randomDepartment() -> String? {
        reference.departments.keys.sorted().randomElement(using: &random)
    }

    private func insert() throws {
        let author = author(), name = "d\(nextName)", budget = value()
        nextName += 1
        log.append("\(step): insert \(name)")
        let context = context(author)
        let department = Department(context: context)
        department.name = name
        department.budget = Decimal(budget)
        try context.save()
        reference.departments[name] = budget
        record(author, changes: 1)
    }

    private func update() throws {
        guard let name = randomDepartment() else { return try insert() }
        let author = author(), budget = value()
        log.append("\(step): update \(name)")
        let context = context(author)
        try department(named: name, in: context).budget = Decimal(budget)
        try context.save()
        reference.departments[name] = budget
        record(author, changes: 1)
    }

    private func delete() throws {
        guard let name = randomDepartment() else { return try insert() }
        let author = author()
        log.append("\(step): delete \(name)")
        let context = context(author)
        context.delete(try department(named: name, in: context))
        try context.save()
        reference.departments[name] = nil
        record(author, changes: 1)
    }

    private func batchUpdate() throws {
        let author = author(), budget = value()
        log.append("\(step): batch update of \(reference.departments.count) departments")
        let context = context(author)
        _ = try context.execute(BatchUpdateRequest(Department.self, predicate: nil, propertiesToUpdate: ["budget": Decimal(budget)]))
        for name in reference.departments.keys { reference.departments[name] = budget }
        record(author, changes: reference.departments.count)
    }

    private func batchDelete() throws {
        guard let name = randomDepartment() else { return try insert() }
        let author = author()
        log.append("\(step): batch delete \(name)")
        let context = context(author)
        _ = try context.execute(BatchDeleteRequest(Department.self, predicate: try FetchPredicate("name == %@", name)))
        reference.departments[name] = nil
        record(author, changes: 1)
    }

    // MARK: Readers

    private func container() -> PersistentContainer {
        containers[Int.random(in: 0..<containers.count, using: &random)]
    }

    /// Reads after reader `index`'s token and checks the answer against the reference.
    private func read(_ index: Int) throws {
        counts.reads += 1
        var reader = readers[index]
        let token = try reader.token.map { try JSONDecoder().decode(HistoryToken.self, from: $0) }
        log.append("\(step): reader \(index) reads after \(token.map(\.description) ?? "nil")")
        let expected: ArraySlice<HistoryReference.Entry>
        let expectExpired: Bool
        if token == nil {
            expected = ArraySlice(reference.present)
            expectExpired = false
        } else if reader.epoch != reference.epoch {
            expected = []
            expectExpired = true
        } else {
            expected = reference.entries[reader.read...]
            expectExpired = expected.contains { $0.pruned }
        }
        let transactions: [HistoryTransaction]
        do {
            transactions = try container().history(after: token)
        } catch let error as HistoryError where error.code == .expiredToken {
            guard expectExpired else { throw fail("reader \(index) after \(token?.description ?? "nil"): expiredToken, but the reference holds every transaction after it: \(error.message)") }
            counts.expired += 1
            readers[index] = OracleReader()
            return
        }
        guard !expectExpired else {
            throw fail("reader \(index) after \(token?.description ?? "nil") read \(transactions.map(\.token.transactionNumber)) (\(transactions.compactMap(\.author))) with no error, but the reference says transactions after it are gone (token of restore epoch \(reader.epoch), now \(reference.epoch); pruned: \(expected.filter(\.pruned).map(\.author)))")
        }
        let got = transactions.map { "\($0.author ?? "-")/\($0.changes.count)" }
        let want = expected.map { "\($0.author)/\($0.changes)" }
        guard got == want else {
            throw fail("reader \(index) after \(token?.description ?? "nil") read \(got), the reference holds \(want)")
        }
        let numbers = transactions.map(\.token.transactionNumber)
        guard numbers == numbers.sorted(), Set(numbers).count == numbers.count,
              numbers.allSatisfy({ $0 > (token?.transactionNumber ?? 0) }) else {
            throw fail("reader \(index): transaction numbers \(numbers) after \(token?.description ?? "nil") are not rising")
        }
        learn(transactions)
        counts.transactionsRead += transactions.count
        if let last = transactions.last {
            reader.token = try JSONEncoder().encode(last.token)
            reader.epoch = reference.epoch
            reader.read = reference.entries.count
        } else if token != nil {
            reader.read = reference.entries.count
        }
        readers[index] = reader
    }

    /// Notes the numbers and times of the reference's present entries from a complete read.
    private func learn(_ transactions: [HistoryTransaction]) {
        let byAuthor = Dictionary(transactions.map { ($0.author ?? "-", $0) }, uniquingKeysWith: { first, _ in first })
        for index in reference.entries.indices where !reference.entries[index].pruned {
            if let transaction = byAuthor[reference.entries[index].author] {
                reference.entries[index].token = transaction.token
                reference.entries[index].timestamp = transaction.timestamp
            }
        }
    }

    /// Reader `index` takes the current token, to read only what comes later.
    private func startFromNow(_ index: Int) throws {
        let token = try container().currentHistoryToken()
        log.append("\(step): reader \(index) starts from now (\(token?.description ?? "nil"))")
        readers[index] = token.map { OracleReader(token: try? JSONEncoder().encode($0), epoch: reference.epoch, read: reference.entries.count) } ?? OracleReader()
        if token == nil, !reference.entries.isEmpty {
            throw fail("currentHistoryToken() is nil though the store recorded transactions")
        }
    }

    /// Reads everything with no token: exactly the transactions left.
    private func readAll() throws {
        let all = try container().history(after: nil)
        let got = all.map { "\($0.author ?? "-")/\($0.changes.count)" }
        let want = reference.present.map { "\($0.author)/\($0.changes)" }
        guard got == want else { throw fail("history(after: nil) read \(got), the reference holds \(want)") }
        learn(all)
    }

    // MARK: Pruning, reopening, migrating, backups and restores

    private func prune(byDate: Bool) throws {
        try readAll()
        let present = reference.entries.indices.filter { !reference.entries[$0].pruned }
        guard let chosen = present.randomElement(using: &random), let token = reference.entries[chosen].token,
              let date = reference.entries[chosen].timestamp else { return }
        counts.prunes += 1
        if byDate {
            log.append("\(step): prune before the date of \(reference.entries[chosen].author)")
            let gone = present.filter { reference.entries[$0].timestamp.map { $0 < date } ?? false }
            let deleted = try container().deleteHistory(before: date)
            for index in gone { reference.entries[index].pruned = true }
            guard deleted == gone.count else { throw fail("deleteHistory(before: date) deleted \(deleted), the reference \(gone.count)") }
        } else {
            log.append("\(step): prune through \(reference.entries[chosen].author) (\(token))")
            let gone = present.filter { $0 <= chosen }
            let deleted = try container().deleteHistory(before: token)
            for index in gone { reference.entries[index].pruned = true }
            guard deleted == gone.count else { throw fail("deleteHistory(before: token) deleted \(deleted), the reference \(gone.count)") }
        }
    }

    private func reopen() throws {
        log.append("\(step): reopen both containers")
        close()
        try open()
    }

    /// Once: reopens with a model that has one more entity (a lightweight migration); every
    /// token keeps working.
    private func migrate() throws {
        guard entities.count == SuiteModel.entities.count else { return try reopen() }
        log.append("\(step): migrate to the model with OracleNote")
        counts.migrations += 1
        close()
        entities = SuiteModel.entities + [OracleNote.self]
        try open()
    }

    private func backUp() throws {
        guard case .file(let url) = store.location else { return try read(0) }
        let copy = url.deletingLastPathComponent().appendingPathComponent("backup-\(step).sqlite")
        log.append("\(step): back up to \(copy.lastPathComponent)")
        try container().backup(to: copy)
        counts.backups += 1
        backup = (copy, reference)
    }

    /// Puts the last backup back: refused while the containers are open; then every token
    /// taken before it is expired, and the history is the backup's.
    private func restore() throws {
        guard case .file(let url) = store.location, let backup else { return try read(1) }
        log.append("\(step): restore \(backup.url.lastPathComponent)")
        do {
            try PersistentContainer.restore(storeAt: url, from: backup.url)
            throw fail("restore went through while two containers had the store open")
        } catch let error as StoreError where error.code == .locked {
            counts.refusedRestores += 1
        }
        close()
        try PersistentContainer.restore(storeAt: url, from: backup.url)
        counts.restores += 1
        let epoch = reference.epoch + 1
        reference = backup.reference
        reference.epoch = epoch
        try open()
    }
}
