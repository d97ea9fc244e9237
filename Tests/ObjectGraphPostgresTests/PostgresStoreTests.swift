import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import Synchronization
import XCTest

final class Team: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \Player.$team, deleteRule: .cascade) var players: Set<Player>
}

final class Player: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var nickname: String? = nil
    @Attribute var age: Int = 0
    @Attribute var active: Bool = false
    @Attribute var fee: Decimal = 0
    @Attribute var joined: Date? = nil
    @Attribute var badge: UUID? = nil
    @Relationship var team: Team?
}

final class Badge: ManagedObject {
    @Attribute(.unique) var code: String = ""
    @Attribute var holder: String = ""
}

/// A model the store above was not created with: an entity more.
final class Stadium: ManagedObject {
    @Attribute var city: String = ""
}

/// The PostgreSQL store against a real server (PostgresTestServer): creating and reopening,
/// reads with the SQLite store's answers, saves, conflicts between containers, uniqueness,
/// batch deletes, aggregates, changes of other containers merged through NOTIFY, and a
/// connection lost during a save.
final class PostgresStoreTests: XCTestCase {
    private let entities: [ManagedObject.Type] = [Team.self, Player.self, Badge.self]

    private func open(_ url: URL, _ entities: [ManagedObject.Type]? = nil, options: PersistentContainer.Options = []) throws -> PersistentContainer {
        try PersistentContainer(name: "League", entities: entities ?? self.entities, store: .postgres(url), options: options)
    }

    /// Players with every kind of value, the same in any container.
    private func fill(_ context: ManagedObjectContext) throws {
        let reds = Team(context: context)
        reds.name = "Reds"; reds.budget = 1200.5
        let blues = Team(context: context)
        blues.name = "blues"; blues.budget = 800
        let rows: [(String, String?, Int, Bool, String, Double?, Team?)] = [
            ("Zoë", "z", 31, true, "10.10", 100, reds),
            ("adam", nil, 25, false, "0.20", nil, reds),
            ("Émile", "Mimi", 40, true, "3.33", 50.5, blues),
            ("bob", "b%b", 25, true, "7", -20, blues),
            ("Carl10", "c_c", 19, false, "0.01", 3, nil),
            ("Carl9", "*star*", 19, true, "1.5", 4, reds),
            ("éclair", "Éclair", 33, false, "2.25", 5, blues),
        ]
        for (index, row) in rows.enumerated() {
            let player = Player(context: context)
            player.name = row.0; player.nickname = row.1; player.age = row.2; player.active = row.3
            player.fee = Decimal(string: row.4)!
            player.joined = row.5.map { Date(timeIntervalSinceReferenceDate: $0) }
            player.badge = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))
            player.team = row.6
        }
        try context.save()
    }

    private func names(_ context: ManagedObjectContext, _ format: String?, _ arguments: [Any], sort: [SortKey]) throws -> [String] {
        var request = FetchRequest<Player>()
        if let format { request.predicate = try FetchPredicate(format, argumentArray: arguments) }
        request.sortDescriptors = sort + [SortKey("name")]
        return try context.fetch(request).map(\.name)
    }

    // MARK: Opening

    func testCreatesCoreDataTablesInItsSchemaAndReopensWithTheSameModel() throws {
        let url = try PostgresTestServer.newDatabase("create")
        do {
            let container = try open(url)
            try fill(container.viewContext)
            container.persistentStoreCoordinator.close()
        }
        let tables = try PostgresTestServer.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'coredata'", database: url)
        XCTAssertEqual(tables, "z_metadata,z_modelcache,z_primarykey,zbadge,zplayer,zteam")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT z_max FROM coredata.z_primarykey WHERE z_name = 'Player'", database: url), "7")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM pg_indexes WHERE schemaname = 'coredata' AND indexname ILIKE 'z_badge_unique_code'", database: url), "1")

        let reopened = try open(url)
        defer { reopened.persistentStoreCoordinator.close() }
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<Player>()), 7)
        let zoe = try XCTUnwrap(reopened.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == %@", "Zoë"))).first)
        XCTAssertEqual(zoe.fee, Decimal(string: "10.10"))
        XCTAssertEqual(zoe.team?.name, "Reds")
        XCTAssertEqual(zoe.joined, Date(timeIntervalSinceReferenceDate: 100))
        XCTAssertEqual(zoe.badge, UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
        XCTAssertTrue(zoe.active)
    }

    func testASchemaOfItsOwnFromTheURL() throws {
        let url = try PostgresTestServer.newDatabase("schema")
        let other = try XCTUnwrap(URL(string: url.absoluteString + "?schema=league2"))
        let first = try open(url)
        let second = try open(other)
        defer { first.persistentStoreCoordinator.close(); second.persistentStoreCoordinator.close() }
        try fill(second.viewContext)
        XCTAssertEqual(try first.viewContext.count(for: FetchRequest<Player>()), 0)
        XCTAssertEqual(try second.viewContext.count(for: FetchRequest<Player>()), 7)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM league2.zplayer", database: url), "7")
    }

    /// The `unaccent` extension is one per database: created inside the first store's schema,
    /// deleting that store (DROP SCHEMA … CASCADE) took it away from every other store, whose
    /// diacritic-insensitive comparisons then failed ("schema coredata does not exist").
    func testDeletingOneStoreLeavesTheOthersDiacriticFolding() throws {
        let url = try PostgresTestServer.newDatabase("unaccent")
        let other = try XCTUnwrap(URL(string: url.absoluteString + "?schema=league2"))
        let first = try open(url)
        let second = try open(other)
        defer { second.persistentStoreCoordinator.close() }
        try fill(second.viewContext)
        let folding = try PostgresTestServer.psql("SELECT obj_description('league2.og_fold(text, integer)'::regprocedure)", database: url)
        try first.persistentStoreCoordinator.destroyStore()
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'coredata'", database: url), "0")
        let zoe = try second.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name ==[cd] %@", "zoe")))
        XCTAssertEqual(zoe.map(\.name), ["Zoë"], "the other store still folds diacritics (\(folding))")
    }

    func testContainersOpeningANewDatabaseAtOnceCreateItOnce() throws {
        let url = try PostgresTestServer.newDatabase("race")
        let opened = Mutex<[PersistentContainer]>([])
        let failures = Mutex<[String]>([])
        let entities = self.entities
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let container = try PersistentContainer(name: "League", entities: entities, store: .postgres(url))
                opened.withLock { $0.append(container) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let containers = opened.withLock { $0 }
        defer { for container in containers { container.persistentStoreCoordinator.close() } }
        XCTAssertEqual(containers.count, 4)
        XCTAssertEqual(Set(containers.map(\.persistentStoreCoordinator.storeIdentifier)).count, 1, "one store, one UUID")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.z_metadata", database: url), "1")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.z_primarykey", database: url), "3")
    }

    func testAnotherModelVersionIsRefusedReadOnlyAndMigratedOtherwise() throws {
        let url = try PostgresTestServer.newDatabase("incompatible")
        do {
            let container = try open(url)
            try fill(container.viewContext)
            container.persistentStoreCoordinator.close()
        }
        XCTAssertThrowsError(try open(url, entities + [Stadium.self], options: [.readOnly])) { error in
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.code, .incompatibleModel, "\(error)")
            XCTAssertTrue(storeError?.message.contains("read-only is not migrated") == true, "\(error)")
        }
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'coredata'", database: url), "6")
        let migrated = try open(url, entities + [Stadium.self])
        migrated.persistentStoreCoordinator.close()
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'coredata'", database: url), "7", "Stadium's table added")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer", database: url), "7")
    }

    func testReadOnlyReadsAndRefusesEveryWrite() throws {
        let url = try PostgresTestServer.newDatabase("readonly")
        XCTAssertThrowsError(try open(url, options: [.readOnly])) { XCTAssertEqual(($0 as? StoreError)?.code, .readOnly) }
        do {
            let container = try open(url)
            try fill(container.viewContext)
            container.persistentStoreCoordinator.close()
        }
        let archive = try open(url, options: [.readOnly])
        defer { archive.persistentStoreCoordinator.close() }
        let context = archive.viewContext
        let players = try context.fetch(FetchRequest<Player>())
        XCTAssertEqual(players.count, 7)
        players[0].age = 99
        XCTAssertThrowsError(try context.save()) { XCTAssertEqual(($0 as? StoreError)?.code, .readOnly) }
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer WHERE zage = 99", database: url), "0")
    }

    // MARK: Reads

    func testFetchesGiveTheSQLiteStoresAnswers() throws {
        let postgres = try open(try PostgresTestServer.newDatabase("fetch"))
        defer { postgres.persistentStoreCoordinator.close() }
        let sqlite = try PersistentContainer(name: "League", entities: entities, location: .inMemory)
        try fill(postgres.viewContext)
        try fill(sqlite.viewContext)
        let cases: [(String?, [Any], [SortKey])] = [
            (nil, [], [SortKey("name")]),
            (nil, [], [SortKey("name", comparison: .caseInsensitive)]),
            (nil, [], [SortKey("name", ascending: false)]),
            (nil, [], [SortKey("nickname"), SortKey("age", ascending: false)]),
            (nil, [], [SortKey("nickname", ascending: false)]),
            (nil, [], [SortKey("joined")]),
            (nil, [], [SortKey("team.name")]),
            ("age > %@", [24], []),
            ("age BETWEEN {19, 31}", [], []),
            ("age IN %@", [[19, 40]], []),
            ("age IN %@", [Array(0...150)], []),
            ("name IN %@", [(0...150).map { "n\($0)" } + ["bob"]], []),
            ("nickname == nil", [], []),
            ("nickname != nil", [], []),
            ("nickname == %@", ["z"], []),
            ("active == YES", [], []),
            ("NOT (active == YES)", [], []),
            ("name BEGINSWITH %@", ["Car"], []),
            ("name ENDSWITH %@", ["10"], []),
            ("name CONTAINS %@", ["a"], []),
            ("name CONTAINS ''", [], []),
            ("name ==[c] %@", ["ZOË"], []),
            ("name ==[cd] %@", ["emile"], []),
            ("name BEGINSWITH[cd] %@", ["E"], []),
            ("name CONTAINS[c] %@", ["A"], []),
            ("name LIKE %@", ["Carl?"], []),
            ("name LIKE %@", ["*l*"], []),
            ("nickname LIKE %@", ["b%b"], []),
            ("nickname LIKE %@", ["\\*star\\*"], []),
            ("nickname LIKE[c] %@", ["C_C"], []),
            ("name MATCHES %@", ["[a-c].*"], []),
            ("name MATCHES[c] %@", ["[a-c].*"], []),
            ("name MATCHES %@", ["Carl[0-9]+"], []),
            ("team.name == %@", ["Reds"], []),
            ("team == nil", [], []),
            ("team.budget > %@", [1000], []),
            ("fee > %@", [Decimal(string: "2.25")!], []),
            ("joined < %@", [Date(timeIntervalSinceReferenceDate: 10)], []),
            ("age + 1 > 30", [], []),
            ("age * 2 == 50", [], []),
            ("age / 2 == 9", [], []),
            ("modulus:by:(age, 2) == 1", [], []),
            ("abs:(age) > 30", [], []),
            ("lowercase:(name) == 'zoë'", [], []),
            ("uppercase:(name) BEGINSWITH 'É'", [], []),
            ("length:(name) == 4", [], []),
            ("name >= %@", ["Carl9"], []),
            ("name < %@", ["b"], []),
            ("nickname <= name", [], []),
            ("TRUEPREDICATE", [], []),
            ("FALSEPREDICATE", [], []),
            ("age > 20 AND (active == NO OR team.name == 'blues')", [], []),
        ]
        for (format, arguments, sort) in cases {
            let expected = try names(sqlite.viewContext, format, arguments, sort: sort)
            let found = try names(postgres.viewContext, format, arguments, sort: sort)
            XCTAssertEqual(found, expected, "\(format ?? "all") sorted by \(sort)")
        }
        let teamCases: [(String, [SortKey])] = [
            ("ANY players.age > 35", []),
            ("ALL players.active == YES", []),
            ("NONE players.age < 20", []),
            ("players.@count == 3", []),
            ("players.@sum.age > 80", []),
            ("players.@avg.age > 28", []),
            ("players.@max.age == 40", []),
            ("SUBQUERY(players, $p, $p.active == YES AND $p.age > 20).@count >= 2", []),
            ("name ==[c] 'BLUES'", [SortKey("name", comparison: .localizedStandard)]),
        ]
        for (format, sort) in teamCases {
            var request = FetchRequest<Team>()
            request.predicate = try FetchPredicate(format)
            request.sortDescriptors = sort + [SortKey("name")]
            XCTAssertEqual(try postgres.viewContext.fetch(request).map(\.name), try sqlite.viewContext.fetch(request).map(\.name), format)
        }
        var page = FetchRequest<Player>(sortDescriptors: [SortKey("age"), SortKey("name")])
        page.fetchLimit = 3
        page.fetchOffset = 2
        XCTAssertEqual(try postgres.viewContext.fetch(page).map(\.name), try sqlite.viewContext.fetch(page).map(\.name))
        XCTAssertEqual(try postgres.viewContext.count(for: page), try sqlite.viewContext.count(for: page))
    }

    func testAggregatesDistinctValuesAndDictionaries() throws {
        let postgres = try open(try PostgresTestServer.newDatabase("aggregate"))
        defer { postgres.persistentStoreCoordinator.close() }
        let sqlite = try PersistentContainer(name: "League", entities: entities, location: .inMemory)
        try fill(postgres.viewContext)
        try fill(sqlite.viewContext)
        for context in [postgres.viewContext, sqlite.viewContext] {
            XCTAssertEqual(try context.aggregate(.sum, of: "fee", as: Decimal.self, for: FetchRequest<Player>()), Decimal(string: "24.39"))
            XCTAssertEqual(try context.aggregate(.sum, of: "age", as: Int.self, for: FetchRequest<Player>()), 192)
            XCTAssertEqual(try context.aggregate(.max, of: "joined", as: Date.self, for: FetchRequest<Player>()), Date(timeIntervalSinceReferenceDate: 100))
            XCTAssertEqual(try context.aggregate(.min, of: "name", as: String.self, for: FetchRequest<Player>()), "Carl10")
            XCTAssertEqual(try context.aggregate(.count, of: "nickname", as: Int.self, for: FetchRequest<Player>()), 6)
        }
        XCTAssertEqual(try postgres.viewContext.aggregate(.average, of: "age", for: FetchRequest<Player>()), try sqlite.viewContext.aggregate(.average, of: "age", for: FetchRequest<Player>()))
        XCTAssertEqual(try postgres.viewContext.aggregate(.average, of: "fee", as: Decimal.self, for: FetchRequest<Player>()),
                       try sqlite.viewContext.aggregate(.average, of: "fee", as: Decimal.self, for: FetchRequest<Player>()))
        XCTAssertEqual(try postgres.viewContext.distinctValues(of: "age", as: Int.self, for: FetchRequest<Player>()), [19, 25, 31, 33, 40])
        XCTAssertEqual(try postgres.viewContext.distinctValues(of: "team.name", as: String.self, for: FetchRequest<Player>()),
                       try sqlite.viewContext.distinctValues(of: "team.name", as: String.self, for: FetchRequest<Player>()))

        var grouped = FetchRequest<Player>()
        grouped.resultType = .dictionary
        grouped.propertiesToFetch = ["age", .aggregate(.count, of: "name", as: "players"), .aggregate(.sum, of: "fee", as: "fees")]
        grouped.propertiesToGroupBy = ["age"]
        grouped.havingPredicate = try FetchPredicate("players > 1")
        grouped.sortDescriptors = [SortKey("age", ascending: false)]
        let rows = try postgres.viewContext.fetchDictionaries(grouped)
        let expected = try sqlite.viewContext.fetchDictionaries(grouped)
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows.map { "\($0["age"]!) \($0["players"]!) \($0["fees"]!)" }, expected.map { "\($0["age"]!) \($0["players"]!) \($0["fees"]!)" })
    }

    // MARK: Writes

    func testSavesUpdatesAndDeletesReachAnotherContainer() throws {
        let url = try PostgresTestServer.newDatabase("save")
        let writer = try open(url)
        defer { writer.persistentStoreCoordinator.close() }
        try fill(writer.viewContext)
        let bob = try XCTUnwrap(writer.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        bob.age = 26
        bob.nickname = nil
        bob.team = nil
        let adam = try XCTUnwrap(writer.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'adam'"))).first)
        writer.viewContext.delete(adam)
        try writer.viewContext.save()

        let reader = try open(url)
        defer { reader.persistentStoreCoordinator.close() }
        let read = try XCTUnwrap(reader.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        XCTAssertEqual(read.age, 26)
        XCTAssertNil(read.nickname)
        XCTAssertNil(read.team)
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Player>()), 6)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT z_opt FROM coredata.zplayer WHERE zname = 'bob'", database: url), "2")
        let reds = try XCTUnwrap(reader.viewContext.fetch(FetchRequest<Team>(predicate: try FetchPredicate("name == 'Reds'"))).first)
        XCTAssertEqual(reds.players.map(\.name).sorted(), ["Carl9", "Zoë"])
    }

    func testMergePoliciesResolveAConflictBetweenTwoContainers() throws {
        let url = try PostgresTestServer.newDatabase("conflict")
        let first = try open(url)
        let second = try open(url)
        defer { first.persistentStoreCoordinator.close(); second.persistentStoreCoordinator.close() }
        try fill(first.viewContext)
        let query = FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))
        let mine = try XCTUnwrap(first.viewContext.fetch(query).first)
        first.viewContext.mergePolicy = .mergeByPropertyObjectTrump
        second.viewContext.automaticallyMergesChanges = false
        let theirs = try XCTUnwrap(second.viewContext.fetch(query).first)
        mine.age = 50
        try first.viewContext.save()

        // The error policy refuses, and the context keeps its change.
        theirs.nickname = "Bobby"
        second.viewContext.mergePolicy = .error
        XCTAssertThrowsError(try second.viewContext.save()) { XCTAssertTrue($0 is MergeConflictError, "\($0)") }
        XCTAssertTrue(second.viewContext.hasChanges)
        // Property by property, the context's changes win and the other container's stay.
        second.viewContext.mergePolicy = .mergeByPropertyObjectTrump
        try second.viewContext.save()
        XCTAssertEqual(try PostgresTestServer.psql("SELECT zage || ' ' || znickname || ' ' || z_opt FROM coredata.zplayer WHERE zname = 'bob'", database: url), "50 Bobby 3")
        XCTAssertEqual(theirs.age, 50)
        // Rollback: the store's values win.
        mine.age = 60
        try first.viewContext.save()
        theirs.age = 70
        second.viewContext.mergePolicy = .rollback
        try second.viewContext.save()
        XCTAssertEqual(theirs.age, 60)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT zage FROM coredata.zplayer WHERE zname = 'bob'", database: url), "60")
    }

    func testTextHoldingNULIsRefusedBeforeAnythingIsWritten() throws {
        let url = try PostgresTestServer.newDatabase("nul")
        let container = try open(url)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        let fine = Player(context: context)
        fine.name = "fine"
        let odd = Player(context: context)
        odd.name = "a\u{0}b"
        XCTAssertThrowsError(try context.save()) { error in
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.code, .serverError, "\(error)")
            XCTAssertEqual((storeError?.underlying as? DatabaseServerError)?.sqlState, "22021")
            XCTAssertTrue(storeError?.message.contains("NUL") == true, "\(error)")
        }
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer", database: url), "0")
        odd.name = "ab"
        try context.save()
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer", database: url), "2")
    }

    func testAUniquenessConflictIsRefusedAndNothingIsWritten() throws {
        let url = try PostgresTestServer.newDatabase("unique")
        let first = try open(url)
        let second = try open(url)
        defer { first.persistentStoreCoordinator.close(); second.persistentStoreCoordinator.close() }
        let badge = Badge(context: first.viewContext)
        badge.code = "GOLD"; badge.holder = "Zoë"
        try first.viewContext.save()

        let copy = Badge(context: second.viewContext)
        copy.code = "GOLD"; copy.holder = "Bob"
        let other = Badge(context: second.viewContext)
        other.code = "SILVER"
        XCTAssertThrowsError(try second.viewContext.save()) { error in
            let conflict = error as? ConstraintConflictError
            XCTAssertEqual(conflict?.conflicts.count, 1, "\(error)")
            XCTAssertEqual(conflict?.conflicts.first?.objectID, copy.objectID)
            XCTAssertEqual(conflict?.conflicts.first?.conflictingObjectIDs, [badge.objectID])
        }
        XCTAssertTrue(second.viewContext.hasChanges)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT string_agg(zcode || ':' || zholder, ',') FROM coredata.zbadge", database: url), "GOLD:Zoë")
        // The unique index refuses it even past the check (a race between two processes).
        XCTAssertThrowsError(try PostgresTestServer.psql("INSERT INTO coredata.zbadge (z_pk, z_ent, z_opt, zcode) VALUES (99, 1, 1, 'GOLD')", database: url))
    }

    func testTheUniqueIndexCatchesAConflictCommittedAfterTheCheck() throws {
        let url = try PostgresTestServer.newDatabase("uniquerace")
        let container = try open(url)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        let badge = Badge(context: context)
        badge.code = "GOLD"; badge.holder = "Bob"
        // Another process commits GOLD between this save's check and its insert.
        let raced = Atomic<Bool>(false)
        container.persistentStoreCoordinator.sqlTrace = { sql in
            if sql.hasPrefix("INSERT INTO ZBADGE"), !raced.exchange(true, ordering: .relaxed) {
                _ = try? PostgresTestServer.psql("INSERT INTO coredata.zbadge (z_pk, z_ent, z_opt, zcode, zholder) SELECT 1000, z_ent, 1, 'GOLD', 'Zoë' FROM coredata.z_primarykey WHERE z_name = 'Badge'", database: url)
            }
        }
        XCTAssertThrowsError(try context.save()) { error in
            let conflict = (error as? ConstraintConflictError)?.conflicts.first
            XCTAssertEqual(conflict?.objectID, badge.objectID, "\(error)")
            XCTAssertEqual(conflict?.conflictingObjectIDs.map(\.uriRepresentation.lastPathComponent), ["p1000"])
        }
        container.persistentStoreCoordinator.sqlTrace = nil
        XCTAssertTrue(raced.load(ordering: .relaxed))
        XCTAssertTrue(context.hasChanges)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT string_agg(zholder, ',') FROM coredata.zbadge", database: url), "Zoë")
    }

    func testBatchDeleteCascadesAndOtherContextsForgetTheObjects() throws {
        let url = try PostgresTestServer.newDatabase("batch")
        let container = try open(url)
        defer { container.persistentStoreCoordinator.close() }
        try fill(container.viewContext)
        let background = container.newBackgroundContext()
        let count = try background.performAndWait {
            var request = BatchDeleteRequest(entityName: "Team", predicate: try FetchPredicate("name == 'Reds'"))
            request.resultType = .objectIDs
            return try background.execute(request).count
        }
        XCTAssertEqual(count, 1)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Team>()), 1)
        XCTAssertEqual(try container.viewContext.fetch(FetchRequest<Player>(sortDescriptors: [SortKey("name")])).map(\.name),
                       ["Carl10", "bob", "Émile", "éclair"], "Zoë, adam and Carl9 went with their team")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer", database: url), "4")
        let updated = try container.viewContext.execute(BatchUpdateRequest(entityName: "Player", predicate: try FetchPredicate("age < 30"), propertiesToUpdate: ["active": true]))
        XCTAssertEqual(updated.count, 2)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer WHERE zactive = 1", database: url), "3")
    }

    // MARK: Other processes

    func testAChangeOfAnotherContainerArrivesByNotifyAndIsMerged() throws {
        let url = try PostgresTestServer.newDatabase("notify")
        let writer = try open(url)
        let watcher = try open(url)
        defer { writer.persistentStoreCoordinator.close(); watcher.persistentStoreCoordinator.close() }
        try fill(writer.viewContext)
        let seen = try XCTUnwrap(watcher.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        XCTAssertEqual(seen.age, 25)

        let bob = try XCTUnwrap(writer.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        let bobID = bob.objectID
        let arrived = expectation(description: "the other container's commit is heard")
        arrived.assertForOverFulfill = false
        let heard = Mutex<[CommittedChanges]>([])
        let observation = watcher.addChangeObserver { change in
            // The notification of fill()'s commit may arrive now too.
            guard change.updated.contains(bobID) else { return }
            heard.withLock { $0.append(change) }
            arrived.fulfill()
        }
        defer { observation.cancel() }
        bob.age = 27
        let newcomer = Player(context: writer.viewContext)
        newcomer.name = "Dora"
        try writer.viewContext.save()
        wait(for: [arrived], timeout: 120)

        let change = try XCTUnwrap(heard.withLock { $0.first })
        XCTAssertEqual(change.updated, [bob.objectID])
        XCTAssertEqual(change.inserted, [newcomer.objectID])
        // The view context merges at its next access, as after a local save.
        XCTAssertEqual(try watcher.viewContext.count(for: FetchRequest<Player>()), 8)
        XCTAssertEqual(seen.age, 27)
    }

    /// Polls `condition` (each poll an entry point of the contexts it reads) until it holds or
    /// `seconds` pass; returns whether it held.
    private func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(10_000)
        }
        return try condition()
    }

    func testACommitTooLargeToListMakesOtherContainersRefreshEverything() throws {
        let url = try PostgresTestServer.newDatabase("large")
        let writer = try open(url)
        let watcher = try open(url)
        defer { writer.persistentStoreCoordinator.close(); watcher.persistentStoreCoordinator.close() }
        try fill(writer.viewContext)
        let seen = try XCTUnwrap(watcher.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        XCTAssertEqual(seen.age, 25)
        let bob = try XCTUnwrap(writer.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        bob.age = 44
        for index in 0..<2000 {
            let player = Player(context: writer.viewContext)
            player.name = "p\(index)"
        }
        try writer.viewContext.save()
        // 2001 objects do not fit in a notification: the watcher is told to refresh everything.
        XCTAssertTrue(try eventually { try watcher.viewContext.count(for: FetchRequest<Team>()) == 2 && seen.age == 44 }, "the watcher's unchanged object reads the new row")
        XCTAssertEqual(try watcher.viewContext.count(for: FetchRequest<Player>()), 2007)
    }

    func testAfterTheListenerReconnectsRegisteredObjectsReadTheirRowsAgain() throws {
        let url = try PostgresTestServer.newDatabase("reconnect")
        let watcher = try open(url)
        defer { watcher.persistentStoreCoordinator.close() }
        try fill(watcher.viewContext)
        let seen = try XCTUnwrap(watcher.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        // A change the watcher never hears of (as while its listener was away), then the
        // connections break: the listener connects again and says changes may be lost.
        try PostgresTestServer.psql("UPDATE coredata.zplayer SET zage = 52, z_opt = z_opt + 1 WHERE zname = 'bob'", database: url)
        XCTAssertEqual(seen.age, 25)
        try PostgresTestServer.terminateConnections(to: url)
        XCTAssertTrue(try eventually { try watcher.viewContext.count(for: FetchRequest<Team>()) == 2 && seen.age == 52 }, "refreshed after the listener reconnected")
    }

    func testABatchDeleteWithoutAPredicateReachesAnotherContainer() throws {
        let url = try PostgresTestServer.newDatabase("batchall")
        let writer = try open(url)
        let watcher = try open(url)
        defer { writer.persistentStoreCoordinator.close(); watcher.persistentStoreCoordinator.close() }
        try fill(writer.viewContext)
        let seen = try watcher.viewContext.fetch(FetchRequest<Player>())
        XCTAssertEqual(seen.count, 7)
        let ids = Set(seen.map(\.objectID))
        let arrived = expectation(description: "the batch delete is heard")
        arrived.assertForOverFulfill = false
        let observation = watcher.addChangeObserver { change in
            if Set(change.deleted) == ids { arrived.fulfill() }
        }
        defer { observation.cancel() }
        let result = try writer.viewContext.execute(BatchDeleteRequest(entityName: "Player"))
        XCTAssertEqual(result.count, 7)
        wait(for: [arrived], timeout: 120)
        XCTAssertEqual(try watcher.viewContext.count(for: FetchRequest<Player>()), 0)
        XCTAssertTrue(seen.allSatisfy(\.isDeleted), "the watcher's objects left its context")
    }

    func testAConnectionLostDuringASaveLeavesNothingHalfApplied() throws {
        let url = try PostgresTestServer.newDatabase("lost")
        let container = try open(url)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        try fill(context)
        let bob = try XCTUnwrap(context.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'bob'"))).first)
        bob.age = 80
        let newcomer = Player(context: context)
        newcomer.name = "Dora"

        let killed = Atomic<Bool>(false)
        container.persistentStoreCoordinator.sqlTrace = { sql in
            // After the insert, before the update: the server loses the connection.
            if sql.hasPrefix("UPDATE ZPLAYER"), !killed.exchange(true, ordering: .relaxed) {
                try? PostgresTestServer.terminateConnections(to: url)
            }
        }
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .connectionLost, "\(error)")
        }
        container.persistentStoreCoordinator.sqlTrace = nil
        XCTAssertTrue(killed.load(ordering: .relaxed))
        XCTAssertTrue(context.hasChanges)
        XCTAssertTrue(newcomer.objectID.isTemporaryID)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) || ' ' || max(zage) FROM coredata.zplayer WHERE zname IN ('bob', 'Dora')", database: url), "1 25")
        // The next save connects again and writes everything.
        try context.save()
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) || ' ' || max(zage) FROM coredata.zplayer WHERE zname IN ('bob', 'Dora')", database: url), "2 80")
    }
}
