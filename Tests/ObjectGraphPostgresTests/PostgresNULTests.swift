import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import XCTest

/// NUL (U+0000), which PostgreSQL's text cannot hold, is refused with one typed error wherever
/// a value would reach the server (issue 43, docs/stores.md#what-differs): `StoreError`
/// `.serverError` with SQLSTATE 22021, naming the property, the parameter or the predicate's
/// argument. (Predicates that the server can answer as SQLite does are in the behavioural
/// suite: `NULArgumentTests`.)
final class PostgresNULTests: XCTestCase {
    private func open(_ url: URL) throws -> PersistentContainer {
        try PersistentContainer(name: "League", entities: [Team.self, Player.self, Badge.self], store: .postgres(url))
    }

    /// Checks `error` is the NUL refusal and its message holds every one of `words`.
    private func assertNULRefusal(_ error: StoreError?, naming words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(error?.code, .serverError, "\(String(describing: error))", file: file, line: line)
        XCTAssertEqual((error?.underlying as? DatabaseServerError)?.sqlState, "22021", file: file, line: line)
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("NUL character (U+0000)"), message, file: file, line: line)
        for word in words { XCTAssertTrue(message.contains(word), "\(word) is not named: \(message)", file: file, line: line) }
    }

    func testNULInAUniqueValueIsRefusedNamingThePropertyBeforeTheUniquenessCheck() throws {
        let url = try PostgresTestServer.newDatabase("nulunique")
        let container = try open(url)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        let badge = Badge(context: context)
        badge.code = "A\u{0}1"
        badge.holder = "Ann"
        let error = expectStoreError { try context.save() }
        assertNULRefusal(error, naming: ["the text of code of"])
        XCTAssertTrue(context.hasChanges)
        badge.code = "A1"
        try context.save()
        // An update of the unique value, too.
        badge.code = "B\u{0}"
        assertNULRefusal(expectStoreError { try context.save() }, naming: ["the text of code of"])
        XCTAssertEqual(try PostgresTestServer.psql("SELECT zcode FROM coredata.zbadge", database: url), "A1")
    }

    func testABoundTextHoldingNULIsRefusedBeforeItIsSentNamingTheParameter() throws {
        let url = try PostgresTestServer.newDatabase("nulparameter")
        let driver = try PostgresDriver(url: url, timeout: .seconds(10), poolSize: 1)
        defer { driver.close() }
        let error = expectStoreError { _ = try driver.withSession { try $0.rows("SELECT $1::bigint, $2::text", [.integer(1), .text("a\u{0}b")]) } }
        assertNULRefusal(error, naming: ["parameter $2"])
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT $1::text", [.text("ab")]) }, [[.text("ab")]], "the connection is still usable")
    }

    func testPredicatesTheServerCannotAnswerForANULArgumentAreRefusedNamingIt() throws {
        let url = try PostgresTestServer.newDatabase("nulpredicate")
        let container = try open(url)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        let player = Player(context: context)
        player.name = "ab"
        try context.save()
        for format in ["name MATCHES %@", "name == uppercase:(%@)", "name BEGINSWITH %@ OR name MATCHES %@"] {
            let arguments = Array(repeating: "a\u{0}b", count: format.components(separatedBy: "%@").count - 1)
            let error = expectStoreError { _ = try context.fetch(FetchRequest<Player>(predicate: FetchPredicate(format, argumentArray: arguments))) }
            assertNULRefusal(error, naming: ["the predicate's argument \"a\\0b\""])
        }
    }
}
