import Foundation
import ManagedRecord
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import Synchronization
import Testing

/// The kinds of store the behavioural suite runs on: every `@Test(arguments: StoreKind.allCases)`
/// runs once per kind, with the same code and the same expected answers.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// A store file in a fresh temporary directory.
    case sqlite
    /// A fresh database on the test PostgreSQL server (`PostgresTestServer`).
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind.
    func newStore() throws -> TestStore {
        switch self {
        case .sqlite:
            let folder = TemporaryFolders.root.appendingPathComponent(UUID().uuidString, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("\(SuiteModel.name).sqlite")
            return TestStore(kind: self, location: .file(file), processArgument: file.path)
        case .postgres:
            let database = try PostgresTestServer.newDatabase("suite")
            return TestStore(kind: self, location: .postgres(database), processArgument: database.absoluteString)
        }
    }

    /// What the store promises about commits made through *another* container (another
    /// coordinator, as in another process): whether they reach the registered objects of this
    /// container's contexts by themselves. The suite's SQLite containers do not: they are
    /// opened with `.ignoresOtherConnections`, so two containers on one file do not notify
    /// each other (only the contexts of one container do), and the suite decides when a
    /// fetch reads their rows or a refresh their values. (Without the option a SQLite
    /// container refreshes what it holds within about 100 ms of another connection's commit,
    /// or merges it from the history: `OtherProcessCommitTests`.) PostgreSQL does: a server
    /// store's saves reach every container open on it, in this process or another.
    /// The options of the suite's containers on this kind of store (see
    /// ``notifiesOtherContainers``).
    var containerOptions: PersistentContainer.Options {
        switch self {
        case .sqlite: [.ignoresOtherConnections]
        case .postgres: []
        }
    }

    var notifiesOtherContainers: Bool {
        switch self {
        case .sqlite: false
        case .postgres: true
        }
    }
}

/// One store, made fresh for one test. Every container opened on it shares its data, as two
/// processes on one file (or one database) do.
struct TestStore: Sendable {
    let kind: StoreKind
    let location: PersistentContainer.Location
    /// How a `StoreWriter` process is told where the store is: the file's path, or the
    /// database's URL.
    let processArgument: String

    /// A new container (a coordinator of its own) on this store.
    func container(_ entities: [ManagedObject.Type] = SuiteModel.entities, name: String = SuiteModel.name) throws -> PersistentContainer {
        try PersistentContainer(name: name, entities: entities, store: location, options: kind.containerOptions)
    }

    /// Sets up the active-record layer for the suite's model on this store.
    @discardableResult
    func setUpRecords(mergePolicy: MergePolicy = .mergeByPropertyObjectTrump) throws -> ContextManager {
        try ManagedRecord.setUp(model: SuiteModel.name, entities: SuiteModel.entities, store: location, mergePolicy: mergePolicy,
                                options: kind.containerOptions)
    }
}

/// The SQLite stores' folders: one folder per test process, removed when it exits (a store
/// outlives the `TestStore` value that made it, in the containers that have it open).
enum TemporaryFolders {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("StoreBehaviour-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        atexit { try? FileManager.default.removeItem(at: TemporaryFolders.root) }
        return root
    }()
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. For
/// changes that arrive asynchronously (a merge from another container or process): the test
/// then asserts the result, so a late arrival fails instead of passing by luck.
func eventually(timeout: Duration = .seconds(120), _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
        if try condition() { return true }
        if clock.now >= deadline { return false }
        usleep(5_000)
    }
}

/// A date at midnight UTC.
func day(_ year: Int, _ month: Int = 1, _ day: Int = 1) -> Date {
    var components = DateComponents()
    (components.year, components.month, components.day) = (year, month, day)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: components)!
}

/// A value shared between threads (a trace callback, writer threads), behind a mutex.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try mutex.withLock { try body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }

    /// Waits until `condition` holds for the value; false if it still does not after
    /// `limit` — a limit for a stalled test to fail by, never a measure of speed.
    func wait(until condition: (Value) -> Bool, limit: Duration = .seconds(120)) -> Bool {
        eventually(timeout: limit) { condition(value) }
    }
}
