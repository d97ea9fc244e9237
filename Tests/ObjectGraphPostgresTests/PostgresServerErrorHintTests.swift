import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import XCTest

/// What a server's refusal says (issue 43, docs/stores.md#errors): SQLSTATE class 42 gets a
/// hint per code instead of "fix the statement" (which the user never wrote), a missing
/// privilege names the role and the object and what to grant, and the store's own DDL says
/// which step of creating the store failed.
final class PostgresServerErrorHintTests: XCTestCase {
    /// `url` logging in as `role`.
    private func url(_ url: URL, as role: String) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.user = role
        return components.url!
    }

    /// A role of its own (a login without CREATE on any database), dropped with what it owns
    /// in `database` when the test ends.
    private func newRole(_ database: URL) throws -> String {
        let role = "nocreate_\(UUID().uuidString.prefix(8).lowercased())"
        try PostgresTestServer.psql("CREATE ROLE \(role) LOGIN", database: database)
        addTeardownBlock {
            _ = try? PostgresTestServer.psql("DROP OWNED BY \(role)", database: database)
            _ = try? PostgresTestServer.psql("DROP ROLE \(role)", database: database)
        }
        return role
    }

    private func open(_ url: URL, options: PersistentContainer.Options = []) throws -> PersistentContainer {
        try PersistentContainer(name: "League", entities: [Team.self, Player.self, Badge.self], store: .postgres(url), options: options)
    }

    func testARoleWithoutCreateOnTheDatabaseIsToldWhichStepFailedAndWhatToGrant() throws {
        let database = try PostgresTestServer.newDatabase("privilege")
        let name = database.lastPathComponent
        let role = try newRole(database)
        let error = expectStoreError { _ = try open(url(database, as: role)) }
        XCTAssertEqual(error?.code, .serverError)
        XCTAssertEqual((error?.underlying as? DatabaseServerError)?.sqlState, "42501")
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("creating the schema coredata"), "the step is not named: \(message)")
        XCTAssertTrue(message.contains("permission denied for database \(name)"), message)
        XCTAssertTrue(message.contains("insufficient_privilege"), message)
        XCTAssertTrue(message.contains("The role \"\(role)\" lacks"), "the role is not named: \(message)")
        XCTAssertTrue(message.contains("GRANT CREATE ON DATABASE \(name) TO \(role)"), "no grant is suggested: \(message)")
        XCTAssertFalse(message.contains("fix the statement"), message)
        XCTAssertFalse(message.contains("refused the statement"), message)
        // The advice works: once granted, the store is created.
        try PostgresTestServer.psql("GRANT CREATE ON DATABASE \(name) TO \(role)", database: database)
        let container = try open(url(database, as: role))
        container.persistentStoreCoordinator.close()
    }

    func testARoleThatMayNotReadTheStoresTablesIsToldWhatToGrant() throws {
        let database = try PostgresTestServer.newDatabase("privilege")
        try open(database).persistentStoreCoordinator.close()
        let role = try newRole(database)
        try PostgresTestServer.psql("GRANT USAGE ON SCHEMA coredata TO \(role)", database: database)
        let error = expectStoreError { _ = try open(url(database, as: role), options: [.readOnly]) }
        XCTAssertEqual((error?.underlying as? DatabaseServerError)?.sqlState, "42501")
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("reading the store's metadata"), "the step is not named: \(message)")
        XCTAssertTrue(message.contains("permission denied for table z_metadata"), message)
        XCTAssertTrue(message.contains("The role \"\(role)\" lacks"), message)
        XCTAssertTrue(message.contains("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA coredata TO \(role)"), message)
        XCTAssertFalse(message.contains("fix the statement"), message)
    }

    func testEachCodeOfClass42HasAHintOfItsOwn() throws {
        let database = try PostgresTestServer.newDatabase("hints")
        let driver = try PostgresDriver(url: database, timeout: .seconds(10), poolSize: 1)
        defer { driver.close() }
        let cases: [(sql: String, state: String, name: String, hint: String)] = [
            ("SELECT * FROM no_such_table", "42P01", "undefined_table", "no such table"),
            ("SELECT no_such_column FROM pg_class", "42703", "undefined_column", "no such column"),
            ("SELEC 1", "42601", "syntax_error", "PostgreSQL cannot parse the statement"),
            ("SELECT no_such_function(1)", "42883", "undefined_function", "no function"),
            ("CREATE TABLE twice (a int); CREATE TABLE twice (a int)", "42P07", "duplicate_table", "already exists"),
        ]
        for (sql, state, name, hint) in cases {
            let error = expectStoreError { try driver.withSession { session in
                for statement in sql.components(separatedBy: "; ") { _ = try session.execute(statement, []) }
            } }
            XCTAssertEqual((error?.underlying as? DatabaseServerError)?.sqlState, state, sql)
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains("(SQLSTATE \(state) \(name))"), "\(sql): \(message)")
            XCTAssertTrue(message.contains(hint), "\(sql): no hint of its own: \(message)")
            XCTAssertFalse(message.contains("does not fit the database's schema or PostgreSQL's syntax"), "\(sql): \(message)")
        }
    }

    func testATableDroppedUnderTheStoreIsNamedWithWhatToDo() throws {
        let database = try PostgresTestServer.newDatabase("dropped")
        let container = try open(database)
        defer { container.persistentStoreCoordinator.close() }
        try PostgresTestServer.psql("DROP TABLE coredata.zplayer", database: database)
        let error = expectStoreError { _ = try container.viewContext.fetch(FetchRequest<Player>()) }
        XCTAssertEqual((error?.underlying as? DatabaseServerError)?.sqlState, "42P01")
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("relation \"zplayer\" does not exist"), message)
        XCTAssertTrue(message.contains("another program dropped or renamed it"), message)
    }
}
