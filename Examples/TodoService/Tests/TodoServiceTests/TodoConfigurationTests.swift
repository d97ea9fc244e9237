import Foundation
import TodoService
import XCTest

/// Configuration from the environment and arguments: SQLite by default, PostgreSQL from
/// DATABASE_URL, and refusals that say what to change.
final class TodoConfigurationTests: XCTestCase {
    func testSQLiteByDefaultPostgreSQLFromDatabaseURL() throws {
        XCTAssertEqual(try TodoConfiguration(environment: [:], arguments: []),
                       TodoConfiguration(store: .sqlite(URL(fileURLWithPath: "todos.sqlite")), host: "127.0.0.1", port: 8080))
        XCTAssertEqual(try TodoConfiguration(environment: ["TODO_DATABASE_PATH": "/var/lib/todo/t.sqlite", "PORT": "9000"], arguments: []),
                       TodoConfiguration(store: .sqlite(URL(fileURLWithPath: "/var/lib/todo/t.sqlite")), port: 9000))
        let url = "postgresql://app@db.internal:5432/todos?sslmode=require"
        XCTAssertEqual(try TodoConfiguration(environment: ["DATABASE_URL": url], arguments: ["--host", "0.0.0.0"]),
                       TodoConfiguration(store: .postgres(URL(string: url)!), host: "0.0.0.0"))
        XCTAssertEqual(try TodoConfiguration(environment: ["DATABASE_URL": url], arguments: ["--sqlite", "/tmp/a.sqlite", "--port", "0"]),
                       TodoConfiguration(store: .sqlite(URL(fileURLWithPath: "/tmp/a.sqlite")), port: 0))
    }

    func testBadConfigurationIsRefusedWithAMessage() {
        let refusals: [([String: String], [String], String)] = [
            (["DATABASE_URL": "mysql://db/todos"], [], "not a PostgreSQL URL"),
            ([:], ["--port", "http"], "port 'http' is not a number"),
            (["PORT": "70000"], [], "port '70000' is not a number from 0 to 65535"),
            ([:], ["--verbose"], "unknown argument '--verbose'"),
            ([:], ["--sqlite"], "--sqlite needs a value"),
        ]
        for (environment, arguments, message) in refusals {
            XCTAssertThrowsError(try TodoConfiguration(environment: environment, arguments: arguments)) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }
}
