import Foundation
import PostgresTestSupport
import Synchronization
import XCTest

/// The PostgreSQL server every PostgreSQL test runs against: fresh databases, psql, and ending
/// connections, on a real server (this process's own, or MANAGEDRECORD_POSTGRES_URL's).
final class PostgresTestServerTests: XCTestCase {
    private let userTables = """
        SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
        """

    func testNewDatabasesAreDistinctAndEmpty() throws {
        let first = try PostgresTestServer.newDatabase("distinct")
        let second = try PostgresTestServer.newDatabase("distinct")

        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT current_database()", database: first), first.lastPathComponent)
        XCTAssertEqual(try PostgresTestServer.psql("SELECT current_database()", database: second), second.lastPathComponent)
        XCTAssertEqual(try PostgresTestServer.psql(userTables, database: first), "0")
        XCTAssertEqual(try PostgresTestServer.psql(userTables, database: second), "0")

        try PostgresTestServer.psql("CREATE TABLE only_in_first (id integer)", database: first)
        XCTAssertEqual(try PostgresTestServer.psql(userTables, database: first), "1")
        XCTAssertEqual(try PostgresTestServer.psql(userTables, database: second), "0")
    }

    func testNewDatabaseFromManyThreadsAtOnce() throws {
        let made = Collected<Result<URL, PostgresTestServerError>>()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            made.append(Result { () throws(PostgresTestServerError) -> URL in
                try PostgresTestServer.newDatabase("threads")
            })
        }
        let urls = try made.all.map { try $0.get() }

        XCTAssertEqual(urls.count, 6)
        XCTAssertEqual(Set(urls).count, 6, "every call made a database of its own: \(urls)")
        for url in urls {
            XCTAssertEqual(try PostgresTestServer.psql(userTables, database: url), "0")
        }
    }

    func testPsqlRoundTripsValues() throws {
        let url = try PostgresTestServer.newDatabase("round_trip")
        try PostgresTestServer.psql("CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL)", database: url)
        try PostgresTestServer.psql("INSERT INTO notes VALUES (1, 'it''s café ✓'), (2, 'second')", database: url)

        XCTAssertEqual(try PostgresTestServer.psql("SELECT body FROM notes WHERE id = 1", database: url),
                       "it's café ✓")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT id, body FROM notes ORDER BY id", database: url),
                       "1|it's café ✓\n2|second")
        XCTAssertEqual(try PostgresTestServer.psql("UPDATE notes SET body = 'changed' WHERE id = 2", database: url), "")
        XCTAssertEqual(try PostgresTestServer.psql("SELECT body FROM notes WHERE id = 2", database: url), "changed")
    }

    func testDatabasesAreUTF8AndCompareTextByCodePoint() throws {
        let url = try PostgresTestServer.newDatabase("collation")

        XCTAssertEqual(try PostgresTestServer.psql("SHOW server_encoding", database: url), "UTF8")
        XCTAssertEqual(try PostgresTestServer.psql("""
            SELECT string_agg(word, ',' ORDER BY word) FROM (VALUES ('b'), ('é'), ('B'), ('a'), ('Z')) AS words(word)
            """, database: url), "B,Z,a,b,é")
    }

    func testPsqlErrorCarriesPostgreSQLsMessage() throws {
        let url = try PostgresTestServer.newDatabase("error")

        XCTAssertThrowsError(try PostgresTestServer.psql("SELECT * FROM no_such_table", database: url)) { error in
            guard case let PostgresTestServerError.commandFailed(_, status, output)? = error as? PostgresTestServerError else {
                return XCTFail("expected commandFailed, got \(error)")
            }
            XCTAssertNotEqual(status, 0)
            XCTAssertTrue(output.contains("relation \"no_such_table\" does not exist"), output)
            XCTAssertTrue("\(error)".contains("no_such_table"), "\(error)")
        }
    }

    func testTerminateConnectionsEndsEveryOtherSession() throws {
        let url = try PostgresTestServer.newDatabase("terminate")
        try PostgresTestServer.terminateConnections(to: url)  // none open: nothing to end

        let sleep = "SELECT pg_sleep(60)"
        let outcomes = Collected<Result<String, PostgresTestServerError>>()
        let sessions = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: sessions) {
                outcomes.append(Result { () throws(PostgresTestServerError) -> String in
                    try PostgresTestServer.psql(sleep, database: url)
                })
            }
        }
        let sleeping = """
            SELECT count(*) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND query = '\(sleep)'
            """
        let deadline = Date().addingTimeInterval(30)
        while try PostgresTestServer.psql(sleeping, database: url) != "2" {
            guard Date() < deadline else { return XCTFail("the two sleeping sessions never showed up") }
            Thread.sleep(forTimeInterval: 0.05)
        }

        try PostgresTestServer.terminateConnections(to: url)

        let others = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        XCTAssertEqual(try PostgresTestServer.psql(others, database: url), "0")
        XCTAssertEqual(sessions.wait(timeout: .now() + 20), .success, "the sessions ended long before their 60 s sleep")
        XCTAssertEqual(outcomes.all.count, 2)
        for outcome in outcomes.all {
            guard case let .failure(.commandFailed(_, _, output)) = outcome else {
                XCTFail("a terminated session should fail, got \(outcome)")
                continue
            }
            XCTAssertTrue(output.contains("terminating connection due to administrator command"), output)
        }
        // A new connection (a client reconnecting) works.
        XCTAssertEqual(try PostgresTestServer.psql("SELECT 40 + 2", database: url), "42")
    }

    func testDatabaseURLNamesTheServerOnLoopback() throws {
        let url = try PostgresTestServer.newDatabase("Where Am I?")
        let running = ProcessInfo.processInfo.environment["MANAGEDRECORD_POSTGRES_URL"]
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .flatMap { $0.isEmpty ? nil : URL(string: $0) }

        XCTAssertTrue(url.lastPathComponent.hasPrefix("where_am_i__"), url.absoluteString)
        XCTAssertFalse((url.user ?? "").isEmpty, url.absoluteString)
        let port = try XCTUnwrap(url.port, url.absoluteString)
        if let running {
            // The server MANAGEDRECORD_POSTGRES_URL names (scripts/postgres-test-server.sh: 127.0.0.1).
            XCTAssertEqual(url.host, running.host)
            XCTAssertEqual(url.port, running.port)
        } else {
            XCTAssertEqual(url.scheme, "postgres")
            XCTAssertEqual(url.host, "127.0.0.1")
            XCTAssertEqual(try PostgresTestServer.psql("SELECT host(inet_server_addr()) || ':' || inet_server_port()",
                                                       database: url),
                           "127.0.0.1:\(port)")
        }
    }
}

/// Values appended from several threads.
private final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    func append(_ item: Element) { items.withLock { $0.append(item) } }

    var all: [Element] { items.withLock { $0 } }
}
