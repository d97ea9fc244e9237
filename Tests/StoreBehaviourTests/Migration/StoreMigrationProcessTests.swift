import Foundation
import ObjectGraph
import PostgresTestSupport
import Testing

/// Processes (`StoreWriter migrate`, built with the tests) migrating one store through the
/// staged contact chain: two at once migrate it once, and one killed mid-migration leaves the
/// store wholly at one version, which the next open migrates.
@Suite("Processes migrating one store", .onOwnThreads)
struct StoreMigrationProcessTests {
    private let v1 = try! ManagedObjectModel(entities: [MigContactV1.self])
    private let v2 = try! ManagedObjectModel(entities: [MigContactV2.self])
    private let v3 = try! ManagedObjectModel(entities: [MigContactV3.self])

    /// A store of three contacts at version 1, and an empty log file for the processes.
    private func contactStore(_ kind: StoreKind) throws -> (TestStore, URL) {
        let store = try kind.newStore()
        let container = try PersistentContainer(name: "Contacts", model: v1, location: store.location)
        for (index, name) in ["Ada Lovelace", "Grace Brewster Hopper", "Plato"].enumerated() {
            let contact = MigContactV1(context: container.viewContext)
            contact.fullName = name
            contact.phone = "555-\(index)"
        }
        try container.viewContext.save()
        container.persistentStoreCoordinator.close()
        let log = TemporaryFolders.root.appendingPathComponent("migrate-\(UUID().uuidString).log")
        #expect(FileManager.default.createFile(atPath: log.path, contents: nil))
        return (store, log)
    }

    private func logLines(_ log: URL) throws -> [String] {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("Two processes opening one store with the newer model at once: one migrates, the other waits and opens it", arguments: StoreKind.allCases)
    func twoProcessesMigrateOnce(_ kind: StoreKind) throws {
        let (store, log) = try contactStore(kind)
        let arguments = [kind.rawValue, store.processArgument, "migrate", log.path, "pair"]
        let first = try WriterProcess(kind: kind, arguments: arguments)
        let second = try WriterProcess(kind: kind, arguments: arguments)
        let outcomes = [first.finish(within: .seconds(600)), second.finish(within: .seconds(600))]
        for outcome in outcomes {
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.output.contains("store writer migrate ok: Ada,Grace,Plato starred=3"), "each process opens the migrated store: \(outcome.output)")
        }
        // "<event> <pid>" lines: both processes started, then one migrated (its handlers ran
        // while the other was opening), then both opened the store.
        let lines = try logLines(log).map { $0.split(separator: " ").map(String.init) }
        #expect(lines.map { $0[0] } == ["start", "start", "willMigrate", "didMigrate", "opened", "opened"], "\(lines)")
        let handlers = lines.filter { $0[0].hasSuffix("Migrate") }
        #expect(Set(handlers.map { $0[1] }).count == 1, "the custom stage ran in one process only: \(lines)")
        #expect(Set(lines.filter { $0[0] == "start" }.map { $0[1] }).count == 2, "two processes: \(lines)")
    }

    @Test("CrashWorkload's staged migration torture on PostgreSQL: every kill leaves the schema wholly at the version its point implies")
    func stagedMigrationTortureOnPostgres() throws {
        let database = try PostgresTestServer.newDatabase("torture")
        let folder = TemporaryFolders.root.appendingPathComponent("torture-\(UUID().uuidString)")
        let torture = try WriterProcess(executable: "CrashWorkload",
                                        arguments: ["staged-migrate-torture", "12", folder.path, "5", "1000", "300", database.absoluteString])
        let outcome = torture.finish(within: .seconds(600))
        #expect(outcome.status == 0, "\(outcome.output)")
        let line = try #require(outcome.output.split(separator: "\n").last { $0.hasPrefix("staged-migrate-torture ok:") }, "\(outcome.output)")
        #expect(line.contains("store=postgres"), "the rounds ran on PostgreSQL schemas: \(line)")
        var counts: [String: Int] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        for point in ["copyingStage1", "inWillMigrate", "copyingStage2", "inDidMigrate", "afterStage2"] {
            #expect(counts[point] == 2, "two children died at \(point): \(line)")
        }
        #expect((counts["atVersion1"] ?? 0) >= 2, "\(line)")
        #expect((counts["atVersion2"] ?? 0) >= 6, "\(line)")
        #expect((counts["atVersion3"] ?? 0) >= 2, "\(line)")
        #expect(counts["rowsChecked"] == 12 * 1000, "\(line)")
    }

    @Test("A process killed during a migration leaves the store wholly at one version; the next open migrates it",
          arguments: StoreKind.allCases, ["stage1", "willMigrate", "didMigrate"])
    func killedMigrationLeavesOneVersion(_ kind: StoreKind, _ point: String) throws {
        let (store, log) = try contactStore(kind)
        let killed = try WriterProcess(kind: kind, arguments: [kind.rawValue, store.processArgument, "migrate", log.path, point])
        let outcome = killed.finish(within: .seconds(600))
        #expect(outcome.status == SIGKILL, "the process killed itself at \(point): \(outcome.output)")

        // Each stage is all or nothing: killed in the lightweight stage, the store is at
        // version 1; killed in the custom stage, at version 2 (the stage before it committed).
        let expected = point == "stage1" ? v1 : v2
        let reader = try PersistentContainer(name: "Contacts", model: expected, location: store.location, options: [.readOnly])
        let count = try reader.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Contact"))
        #expect(count == 3, "the store opens read-only at version \(point == "stage1" ? 1 : 2), with every row")
        if point != "stage1" {
            #expect(try reader.viewContext.fetch(FetchRequest<MigContactV2>()).filter(\.starred).isEmpty, "willMigrate's unsaved changes are gone")
        }
        reader.persistentStoreCoordinator.close()
        let ran = Locked<[String]>([])
        let stages = StagedMigrationManager([.lightweight(from: v1, to: v2), StoreMigrationTests.splittingStage(from: v2, to: v3, ran: ran)])
        let container = try PersistentContainer(name: "Contacts", model: v3, location: store.location, stagedMigration: stages)
        defer { container.persistentStoreCoordinator.close() }
        let contacts = try container.viewContext.fetch(FetchRequest<MigContactV3>(sortDescriptors: [SortKey("telephone")]))
        #expect(contacts.map(\.firstName) == ["Ada", "Grace", "Plato"])
        #expect(contacts.map(\.lastName) == ["Lovelace", "Brewster Hopper", ""])
        #expect(contacts.map(\.telephone) == ["555-0", "555-1", "555-2"])
        switch kind {
        case .postgres:
            let url = try #require(URL(string: store.processArgument))
            #expect(try PostgresTestServer.psql("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'og_migrating%'", database: url) == "0",
                    "no half-written schema is left")
        case .sqlite:
            let folder = URL(fileURLWithPath: store.processArgument).deletingLastPathComponent()
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("migrating") } == [],
                    "the killed migration's copies are removed by the next migration")
        }
    }
}
