import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import Synchronization
import XCTest

/// The PostgreSQL driver against a real server (PostgresTestServer): values, counts, server
/// errors, transactions, connection failures, timeouts, reconnection, LISTEN/NOTIFY, threads.
final class PostgresDriverTests: XCTestCase {
    // MARK: Values

    func testEveryValueKindRoundTripsThroughATable() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("values"))
        defer { driver.close() }
        let rows: [[SQLValue]] = [
            [.integer(1), .integer(Int64.max), .real(-2.5e-300), .text("héllo wörld ✓ 日本 👋"), .blob(Data([0, 1, 2, 255, 0]))],
            [.integer(2), .integer(Int64.min), .real(0), .text(""), .blob(Data())],
            [.integer(3), .null, .real(3.25), .text("x"), .blob(Data([7]))],
            [.integer(4), .integer(0), .null, .text("y"), .blob(Data([8]))],
            [.integer(5), .integer(-1), .real(.infinity), .null, .blob(Data([9]))],
            [.integer(6), .integer(42), .real(1.5), .text("z"), .null],
        ]
        let read = try driver.withSession { session in
            try session.execute("CREATE TABLE t (id int8 PRIMARY KEY, i int8, r float8, s text, b bytea)", [])
            for row in rows {
                XCTAssertEqual(try session.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)", row), 1)
            }
            return try session.rows("SELECT id, i, r, s, b FROM t ORDER BY id")
        }
        XCTAssertEqual(read, rows)
    }

    func testColumnTypesDecodeToTheirValueKinds() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("types"))
        defer { driver.close() }
        let row = try driver.withSession { session in
            try session.rows(
                """
                SELECT 7::int2, 8::int4, 9::oid, true, false, 1.5::float4, 12345678.125::numeric, -0.0001::numeric,
                       'v'::varchar, 'n'::name, 'c'::char(3), '2024-02-29'::date, '2024-02-29 13:45:07.25'::timestamp,
                       '5c6f2e1a-6f1e-4c53-9d8e-0c1a3b2d4e5f'::uuid, '{"a": 1}'::jsonb, NULL::int8, pg_notify('nobody', '')
                """
            )
        }
        XCTAssertEqual(
            row,
            [[
                .integer(7), .integer(8), .integer(9), .integer(1), .integer(0), .real(1.5), .text("12345678.125"), .text("-0.0001"),
                .text("v"), .text("n"), .text("c  "), .text("2024-02-29"), .text("2024-02-29 13:45:07.25"),
                .text("5c6f2e1a-6f1e-4c53-9d8e-0c1a3b2d4e5f"), .text("{\"a\": 1}"), .null, .null,
            ]]
        )
    }

    func testANullParameterTakesTheTypeOfItsPlace() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("nulls"))
        defer { driver.close() }
        try driver.withSession { session in
            try session.execute("CREATE TABLE t (i int4, r numeric, b bytea, d date, s text)", [])
            XCTAssertEqual(try session.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)", [.null, .null, .null, .null, .null]), 1)
            XCTAssertEqual(try session.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)", [.integer(1), .real(2), .blob(Data([3])), .null, .text("s")]), 1)
            XCTAssertEqual(try session.rows("SELECT count(*) FROM t WHERE i = $1 OR b = $2 OR d = $3", [.null, .null, .null]), [[.integer(0)]])
            XCTAssertEqual(try session.rows("SELECT count(*) FROM t WHERE i IS NOT DISTINCT FROM $1", [.null]), [[.integer(1)]])
            XCTAssertEqual(try session.execute("UPDATE t SET s = $1 WHERE i = $2", [.null, .integer(1)]), 1)
            // numeric reads as its exact text.
            XCTAssertEqual(try session.rows("SELECT i, r, b, s FROM t WHERE i = 1"), [[.integer(1), .text("2"), .blob(Data([3])), .null]])
        }
    }

    // MARK: Counts, errors, transactions

    func testExecuteReturnsTheAffectedRowCount() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("counts"))
        defer { driver.close() }
        try driver.withSession { session in
            XCTAssertEqual(try session.execute("CREATE TABLE t (id int8, v text)", []), 0)
            XCTAssertEqual(try session.execute("INSERT INTO t VALUES (1, 'a'), (2, 'a'), (3, 'b')", []), 3)
            XCTAssertEqual(try session.execute("UPDATE t SET v = 'c' WHERE v = $1", [.text("a")]), 2)
            XCTAssertEqual(try session.execute("UPDATE t SET v = 'd'", []), 3)
            XCTAssertEqual(try session.execute("DELETE FROM t WHERE id > $1", [.integer(1)]), 2)
            XCTAssertEqual(try session.execute("DELETE FROM t WHERE id > 100", []), 0)
            XCTAssertEqual(
                try session.execute("MERGE INTO t USING (VALUES (1), (5)) AS s(id) ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'm' WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'n')", []),
                2
            )
        }
    }

    func testAUniqueViolationCarriesItsSQLState() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("unique"))
        defer { driver.close() }
        let error = try driver.withSession { session in
            try session.execute("CREATE TABLE t (id int8 PRIMARY KEY)", [])
            try session.execute("INSERT INTO t VALUES ($1)", [.integer(1)])
            return storeError { try session.execute("INSERT INTO t VALUES ($1)", [.integer(1)]) }
        }
        XCTAssertEqual(error?.code, .serverError)
        let serverError = try XCTUnwrap(error?.underlying as? DatabaseServerError)
        XCTAssertEqual(serverError.sqlState, "23505")
        XCTAssertEqual(serverError.statement, "INSERT INTO t VALUES ($1)")
        XCTAssertTrue(serverError.message.contains("duplicate key"), serverError.message)
        XCTAssertTrue(error?.message.contains("constraint") == true, error?.message ?? "")
    }

    func testASyntaxErrorCarriesItsSQLStateAndTheConnectionStaysUsable() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("syntax"), poolSize: 1)
        defer { driver.close() }
        let error = driver.withSessionError { session in try session.execute("SELEC 1", []) }
        XCTAssertEqual(error?.code, .serverError)
        XCTAssertEqual((error?.underlying as? DatabaseServerError)?.sqlState, "42601")
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT 1") }, [[.integer(1)]])
    }

    func testARolledBackTransactionLeavesNoRows() throws {
        let url = try PostgresTestServer.newDatabase("rollback")
        let driver = try PostgresDriver(url: url, poolSize: 1)
        defer { driver.close() }
        try driver.withSession { session in
            try session.execute("CREATE TABLE t (id int8)", [])
            try session.execute("BEGIN", [])
            try session.execute("INSERT INTO t VALUES (1)", [])
            XCTAssertEqual(try session.rows("SELECT count(*) FROM t"), [[.integer(1)]])
            try session.execute("ROLLBACK", [])
            XCTAssertEqual(try session.rows("SELECT count(*) FROM t"), [[.integer(0)]])
        }
        // A body that throws inside a transaction: the driver rolls it back.
        struct Abandon: Error {}
        XCTAssertThrowsError(
            try driver.withSession { session in
                try session.execute("BEGIN", [])
                try session.execute("INSERT INTO t VALUES (2)", [])
                throw Abandon()
            }
        ) { XCTAssertTrue($0 is Abandon) }
        try driver.withSession { session in
            XCTAssertEqual(try session.rows("SELECT count(*) FROM t"), [[.integer(0)]])
            // Outside a transaction (the pool's one connection is not left in one), so another
            // connection sees the row at once.
            XCTAssertEqual(try session.execute("INSERT INTO t VALUES (3)", []), 1)
        }
        let other = try PostgresDriver(url: url, poolSize: 1)
        defer { other.close() }
        XCTAssertEqual(try other.withSession { try $0.rows("SELECT id FROM t") }, [[.integer(3)]])
    }

    // MARK: Connecting

    func testAClosedPortIsAConnectionFailure() throws {
        let error = storeError { _ = try PostgresDriver(url: URL(string: "postgres://managedrecord@127.0.0.1:1/postgres")!) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertTrue(error?.message.contains("connection refused") == true, error?.message ?? "")
    }

    func testAnUnknownDatabaseIsAConnectionFailure() throws {
        var components = try XCTUnwrap(URLComponents(url: try PostgresTestServer.newDatabase("known"), resolvingAgainstBaseURL: false))
        components.path = "/no_such_database_here"
        let error = storeError { _ = try PostgresDriver(url: components.url!) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertTrue(error?.message.contains("no database \"no_such_database_here\"") == true, error?.message ?? "")
    }

    func testAPostgresqlURLWithAPasswordConnectsAndErrorsDoNotShowThePassword() throws {
        var components = try XCTUnwrap(URLComponents(url: try PostgresTestServer.newDatabase("password"), resolvingAgainstBaseURL: false))
        components.scheme = "postgresql"
        // A server that trusts its user does not ask for the password; one that asks has it in the URL.
        if components.password == nil { components.password = "s3cret" }
        let password = try XCTUnwrap(components.password)
        let driver = try PostgresDriver(url: try XCTUnwrap(components.url))
        defer { driver.close() }
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT current_user") }, [[.text(components.user ?? "")]])
        let error = driver.withSessionError { try $0.execute("SELEC", []) }
        XCTAssertEqual(error?.code, .serverError)
        XCTAssertFalse(error?.url?.absoluteString.contains(password) ?? true, "\(error?.url?.absoluteString ?? "")")
        XCTAssertFalse(error?.description.contains(password) ?? true)
    }

    func testAMalformedURLCannotOpen() {
        for text in ["http://u@127.0.0.1/db", "postgres://127.0.0.1/db", "postgres://u@127.0.0.1", "postgres://u@127.0.0.1/a/b", "postgres://u@127.0.0.1/db?ssl=true"] {
            let error = storeError { _ = try PostgresDriver(url: URL(string: text)!) }
            XCTAssertEqual(error?.code, .cannotOpen, text)
            XCTAssertTrue(error?.message.contains("postgres://user[:password]@host[:port]/database") == true, error?.message ?? text)
        }
    }

    // MARK: Timeouts and broken connections

    func testAStatementLongerThanTheTimeoutTimesOut() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("timeout"), timeout: .seconds(1), poolSize: 1)
        defer { driver.close() }
        let started = ContinuousClock.now
        let error = driver.withSessionError { _ = try $0.rows("SELECT pg_sleep(10)") }
        XCTAssertEqual(error?.code, .timeout)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT 2") }, [[.integer(2)]])
    }

    func testAStatementTheServerDoesNotCancelTimesOutOnTheClient() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("deadline"), timeout: .seconds(1), poolSize: 1)
        defer { driver.close() }
        let started = ContinuousClock.now
        let error = driver.withSessionError { session in
            try session.execute("SET statement_timeout = 0", [])
            _ = try session.rows("SELECT pg_sleep(4)")
        }
        XCTAssertEqual(error?.code, .timeout)
        XCTAssertTrue(error?.message.contains("the connection was closed") == true, error?.message ?? "")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4))
        // The abandoned connection was dropped: a new one has the server's timeout again.
        XCTAssertEqual(try driver.withSession { try $0.rows("SHOW statement_timeout") }, [[.text("1s")]])
    }

    func testASessionWaitsForAFreeConnectionForAtMostTheTimeout() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("busy"), timeout: .seconds(1), poolSize: 1)
        defer { driver.close() }
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? driver.withSession { _ in
                holding.signal()
                Thread.sleep(forTimeInterval: 2)
            }
            released.signal()
        }
        holding.wait()
        let error = storeError { try driver.withSession { _ in } }
        XCTAssertEqual(error?.code, .timeout)
        XCTAssertTrue(error?.message.contains("larger poolSize") == true, error?.message ?? "")
        released.wait()
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT 4") }, [[.integer(4)]])
    }

    func testAConnectionEndedDuringASessionIsLostAndTheNextCallConnectsAgain() throws {
        let url = try PostgresTestServer.newDatabase("lost")
        let driver = try PostgresDriver(url: url, poolSize: 1)
        defer { driver.close() }
        try driver.withSession { _ = try $0.execute("CREATE TABLE t (id int8)", []) }
        let error = driver.withSessionError { session in
            try session.execute("BEGIN", [])
            try session.execute("INSERT INTO t VALUES (1)", [])
            try PostgresTestServer.terminateConnections(to: url)
            try session.execute("INSERT INTO t VALUES (2)", [])
        }
        XCTAssertEqual(error?.code, .connectionLost)
        XCTAssertTrue(error?.message.contains("next call connects anew") == true, error?.message ?? "")
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT count(*) FROM t") }, [[.integer(0)]], "rolled back")
    }

    func testIdleConnectionsEndedByTheServerAreReplaced() throws {
        let url = try PostgresTestServer.newDatabase("idle")
        let driver = try PostgresDriver(url: url, poolSize: 2)
        defer { driver.close() }
        try PostgresTestServer.terminateConnections(to: url)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT 3") }, [[.integer(3)]])
    }

    func testCallsAfterCloseThrowClosed() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("closed"))
        driver.close()
        XCTAssertEqual(storeError { try driver.withSession { _ in } }?.code, .closed)
        XCTAssertEqual(storeError { try driver.listen("c") { _ in } }?.code, .closed)
        driver.close()
    }

    // MARK: LISTEN/NOTIFY

    func testNotificationsFromAnotherSessionReachTheHandler() throws {
        let url = try PostgresTestServer.newDatabase("notify")
        let driver = try PostgresDriver(url: url)
        defer { driver.close() }
        let inbox = Inbox()
        let answers = Mutex<[[[SQLValue]]]>([])
        try driver.listen("changes") { payload in
            // The handler runs off the driver's event loop, so it may call the driver.
            let answer = try? driver.withSession { try $0.rows("SELECT 1") }
            answers.withLock { $0.append(answer ?? []) }
            inbox.add(payload)
        }
        try PostgresTestServer.psql("NOTIFY changes, 'from psql'", database: url)
        try driver.withSession { _ = try $0.rows("SELECT pg_notify('changes', $1)", [.text("from the driver")]) }
        XCTAssertTrue(inbox.wait { $0.count == 2 }, "\(inbox.items)")
        XCTAssertEqual(inbox.items, ["from psql", "from the driver"])
        XCTAssertEqual(answers.withLock { $0 }, [[[.integer(1)]], [[.integer(1)]]])
    }

    func testTheListenerConnectsAgainAndSaysNotificationsMayHaveBeenMissed() throws {
        let url = try PostgresTestServer.newDatabase("relisten")
        let driver = try PostgresDriver(url: url)
        defer { driver.close() }
        let inbox = Inbox()
        try driver.listen("changes") { inbox.add($0) }
        try PostgresTestServer.psql("NOTIFY changes, 'before'", database: url)
        XCTAssertTrue(inbox.wait { $0 == ["before"] }, "\(inbox.items)")
        try PostgresTestServer.terminateConnections(to: url)
        // nil once it listens again; then a notification arrives. (If the listener was ended
        // again while it reconnected, the notification may be missed: another nil says so.)
        var delivered = false
        for _ in 0..<5 where !delivered {
            XCTAssertTrue(inbox.wait(seconds: 20) { $0.count >= 2 && $0.last == .some(nil) }, "\(inbox.items)")
            try PostgresTestServer.psql("NOTIFY changes, 'after'", database: url)
            delivered = inbox.wait(seconds: 5) { $0.last == "after" }
        }
        XCTAssertTrue(delivered, "\(inbox.items)")
        XCTAssertEqual(inbox.items.first, "before")
        XCTAssertEqual(inbox.items.dropFirst().first, .some(nil), "\(inbox.items)")
        XCTAssertEqual(Set(inbox.items.dropFirst().compactMap { $0 }), ["after"], "\(inbox.items)")
    }

    // MARK: Threads

    func testManyThreadsShareTheDriver() throws {
        let driver = try PostgresDriver(url: try PostgresTestServer.newDatabase("threads"), poolSize: 3)
        defer { driver.close() }
        try driver.withSession { _ = try $0.execute("CREATE TABLE t (thread int8, n int8)", []) }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            do {
                for n in 0..<15 {
                    try driver.withSession { session in
                        try session.execute("BEGIN", [])
                        try session.execute("INSERT INTO t VALUES ($1, $2)", [.integer(Int64(thread)), .integer(Int64(n))])
                        try session.execute("COMMIT", [])
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(
            try driver.withSession { try $0.rows("SELECT count(*), count(DISTINCT thread), sum(n) FROM t") },
            [[.integer(120), .integer(8), .text("840")]]     // sum(bigint) is numeric: its exact text
        )
    }
}

/// Notification payloads as the handler got them, in order.
private final class Inbox: Sendable {
    private let received = Mutex<[String?]>([])

    var items: [String?] { received.withLock { $0 } }

    func add(_ payload: String?) { received.withLock { $0.append(payload) } }

    /// Waits until `condition` holds for the payloads, for at most `seconds`.
    func wait(seconds: Double = 10, until condition: ([String?]) -> Bool) -> Bool {
        let deadline = Date.now.addingTimeInterval(seconds)
        while Date.now < deadline {
            if condition(items) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition(items)
    }
}

/// The StoreError `body` throws, or nil (a failure is recorded when it throws none).
private func storeError(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) -> StoreError? {
    do {
        try body()
        XCTFail("expected a StoreError", file: file, line: line)
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        XCTFail("expected a StoreError, got \(error)", file: file, line: line)
        return nil
    }
}

extension PostgresDriver {
    /// The StoreError a session whose `body` fails throws.
    fileprivate func withSessionError(
        file: StaticString = #filePath, line: UInt = #line, _ body: (any DatabaseServerSession) throws -> Void
    ) -> StoreError? {
        storeError(file: file, line: line) { try withSession(body) }
    }
}
