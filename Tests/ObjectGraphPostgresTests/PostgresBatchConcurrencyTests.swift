import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import Synchronization
import XCTest

/// Batch deletes and updates on PostgreSQL while another session changes a selected row: at
/// READ COMMITTED the batch waits for that session's row lock, then must act only on rows
/// that still match its predicate (the other session's committed change decides), and its
/// delete rules must follow only the rows it deleted.
final class PostgresBatchConcurrencyTests: XCTestCase {
    private let entities: [ManagedObject.Type] = [Team.self, Player.self, Badge.self]

    /// A store holding two teams (Reds 1200.5, blues 800) and seven players, three of them
    /// inactive (adam, Carl10, éclair).
    private func filledStore(_ prefix: String) throws -> (URL, PersistentContainer) {
        let url = try PostgresTestServer.newDatabase(prefix)
        let container = try PersistentContainer(name: "League", entities: entities, store: .postgres(url))
        let context = container.viewContext
        let reds = Team(context: context)
        reds.name = "Reds"; reds.budget = 1200.5
        let blues = Team(context: context)
        blues.name = "blues"; blues.budget = 800
        for (name, age, active, team) in [("Zoë", 31, true, reds), ("adam", 25, false, reds), ("Émile", 40, true, blues),
                                          ("bob", 25, true, blues), ("Carl10", 19, false, nil), ("Carl9", 19, true, reds),
                                          ("éclair", 33, false, blues)] as [(String, Int, Bool, Team?)] {
            let player = Player(context: context)
            player.name = name; player.age = age; player.active = active; player.team = team
        }
        try context.save()
        return (url, container)
    }

    func testABatchDeleteSparesARowAnotherSessionMovedOutOfThePredicate() throws {
        let (url, container) = try filledStore("batch_race_delete")
        defer { container.persistentStoreCoordinator.close() }
        let session = try HeldTransaction("UPDATE coredata.zplayer SET zactive = 1, z_opt = z_opt + 1 WHERE zname = 'adam'", database: url)
        let started = Date()
        var request = BatchDeleteRequest(entityName: "Player", predicate: try FetchPredicate("active == NO"))
        request.resultType = .objectIDs
        let result = try container.viewContext.execute(request)
        let waited = Date().timeIntervalSince(started)
        try session.finish()
        XCTAssertGreaterThan(waited, 0.5, "the batch waited for the other session's row lock (else the test proves nothing)")

        XCTAssertEqual(result.count, 2, "adam was published by the other session before the batch could delete it")
        let adam = try XCTUnwrap(container.viewContext.fetch(FetchRequest<Player>(predicate: try FetchPredicate("name == 'adam'"))).first)
        XCTAssertFalse(result.objectIDs.contains(adam.objectID), "the result does not list the row it spared")
        XCTAssertTrue(adam.active)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT string_agg(zname, ',' ORDER BY zname) FROM coredata.zplayer WHERE zactive = 0", database: url), "")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT zactive FROM coredata.zplayer WHERE zname = 'adam'", database: url), "1",
                       "the row moved out of the predicate survives")
        let reader = try PersistentContainer(name: "League", entities: entities, store: .postgres(url))
        defer { reader.persistentStoreCoordinator.close() }
        XCTAssertEqual(try reader.viewContext.count(for: FetchRequest<Player>()), 5)
    }

    func testABatchUpdateLeavesARowAnotherSessionMovedOutOfThePredicate() throws {
        let (url, container) = try filledStore("batch_race_update")
        defer { container.persistentStoreCoordinator.close() }
        let session = try HeldTransaction("UPDATE coredata.zplayer SET zactive = 1, zage = 50, z_opt = z_opt + 1 WHERE zname = 'adam'", database: url)
        let started = Date()
        let result = try container.viewContext.execute(BatchUpdateRequest(entityName: "Player", predicate: try FetchPredicate("active == NO"),
                                                                           propertiesToUpdate: ["age": 99]))
        let waited = Date().timeIntervalSince(started)
        try session.finish()
        XCTAssertGreaterThan(waited, 0.5, "the batch waited for the other session's row lock (else the test proves nothing)")

        XCTAssertEqual(result.count, 2, "adam no longer matched when the batch could update him")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT string_agg(zname || '=' || zage, ',' ORDER BY zname) FROM coredata.zplayer WHERE zage = 99", database: url),
                       "Carl10=99,éclair=99")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT zage FROM coredata.zplayer WHERE zname = 'adam'", database: url), "50",
                       "the other session's value is not overwritten")
    }

    func testABatchDeleteCascadesOnlyFromTheRowsItDeleted() throws {
        let (url, container) = try filledStore("batch_race_cascade")
        defer { container.persistentStoreCoordinator.close() }
        let session = try HeldTransaction("UPDATE coredata.zteam SET zbudget = 5000, z_opt = z_opt + 1 WHERE zname = 'blues'", database: url)
        let started = Date()
        let result = try container.viewContext.execute(BatchDeleteRequest(entityName: "Team", predicate: try FetchPredicate("budget < 1000")))
        let waited = Date().timeIntervalSince(started)
        try session.finish()
        XCTAssertGreaterThan(waited, 0.5, "the batch waited for the other session's row lock (else the test proves nothing)")

        XCTAssertEqual(result.count, 0, "blues no longer matched")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zteam", database: url), "2")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT count(*) FROM coredata.zplayer", database: url), "7",
                       "the players of the team that was not deleted are not cascaded to")
    }
}

/// A psql session that runs a statement in one transaction and then holds that transaction
/// (and its row locks) open for `seconds` before committing. The initializer returns once the
/// session is holding it; ``finish()`` waits for its commit and reports its failure.
private final class HeldTransaction: Sendable {
    private let outcome = Mutex<(done: Bool, failure: String?)>((false, nil))

    init(_ statement: String, database url: URL, seconds: Double = 2) throws {
        Thread.detachNewThread { [self] in
            var failure: String?
            do { try PostgresTestServer.psql("\(statement); SELECT pg_sleep(\(seconds))", database: url) } catch { failure = "\(error)" }
            outcome.withLock { $0 = (true, failure) }
        }
        let deadline = Date().addingTimeInterval(30)
        while try PostgresTestServer.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'", database: url) == "0" {
            if let failure = outcome.withLock({ $0.failure }) { throw HeldTransactionError(message: failure) }
            if Date() > deadline { throw HeldTransactionError(message: "the psql session did not start holding its transaction within 30 s") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Waits until the session committed; throws its error if it failed.
    func finish() throws {
        while !outcome.withLock({ $0.done }) { Thread.sleep(forTimeInterval: 0.02) }
        if let failure = outcome.withLock({ $0.failure }) { throw HeldTransactionError(message: failure) }
    }
}

private struct HeldTransactionError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
