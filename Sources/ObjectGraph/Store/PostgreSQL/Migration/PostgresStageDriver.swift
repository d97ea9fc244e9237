import Foundation

/// The driver of the stores a custom stage's handlers see during a PostgreSQL migration:
/// every call runs on the migration's own connection, inside its transaction, and the
/// stores' transactions become savepoints of it (`BEGIN` a `SAVEPOINT`, `COMMIT` its
/// release, `ROLLBACK` a rollback to it). What a handler saves is part of the migration's
/// transaction: it commits with the stage, or is rolled back with it.
///
/// Used on the thread that runs the migration only (the handlers' contexts are confined).
final class PostgresStageDriver: DatabaseServerDriver, @unchecked Sendable {  // one thread: the migration's
    private let connection: any DatabaseServerSession
    /// Open savepoints, innermost last.
    private var savepoints: [String] = []
    private var next = 0

    init(connection: any DatabaseServerSession) {
        self.connection = connection
    }

    func withSession<T>(_ body: (any DatabaseServerSession) throws -> T) throws -> T {
        try body(Session(driver: self))
    }

    /// The stage's stores hear no other process: the migration holds the schema's lock.
    func listen(_ channel: String, _ handler: @escaping @Sendable (String?) -> Void) throws {}

    /// The connection is the migration's: it stays open.
    func close() {}

    /// `sql` as the migration's transaction runs it: transaction control becomes savepoints.
    fileprivate func translated(_ sql: String) -> [String] {
        switch sql.trimmingCharacters(in: .whitespaces).uppercased() {
        case "BEGIN", "START TRANSACTION":
            next += 1
            savepoints.append("og_stage_\(next)")
            return ["SAVEPOINT \(savepoints.last!)"]
        case "COMMIT", "END":
            guard let savepoint = savepoints.popLast() else { return [] }
            return ["RELEASE SAVEPOINT \(savepoint)"]
        case "ROLLBACK":
            guard let savepoint = savepoints.popLast() else { return [] }
            return ["ROLLBACK TO SAVEPOINT \(savepoint)", "RELEASE SAVEPOINT \(savepoint)"]
        default:
            return [sql]
        }
    }

    private struct Session: DatabaseServerSession {
        let driver: PostgresStageDriver

        func query(_ sql: String, _ parameters: [SQLValue], _ row: ([SQLValue]) throws -> Void) throws {
            let statements = driver.translated(sql)
            guard statements == [sql] else {
                for statement in statements { try driver.connection.execute(statement, []) }
                return
            }
            try driver.connection.query(sql, parameters, row)
        }

        func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
            let statements = driver.translated(sql)
            guard statements == [sql] else {
                for statement in statements { try driver.connection.execute(statement, []) }
                return 0
            }
            return try driver.connection.execute(sql, parameters)
        }
    }
}
