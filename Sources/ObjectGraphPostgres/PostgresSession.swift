import Logging
import ObjectGraph
import PostgresNIO

/// One connection lent to ``PostgresDriver/withSession(_:)``'s body: each statement is sent
/// with its parameters (PostgreSQL's extended protocol, so one statement per call) and waited
/// for on the calling thread.
final class PostgresSession: DatabaseServerSession {
    private let connection: PostgresConnection
    private let bridge: PostgresBlockingBridge
    private let errors: PostgresErrorTranslator
    private let logger: Logger
    /// How long the driver waits for an answer: the server's statement_timeout (the driver's
    /// timeout) and a second for the server's own error to arrive.
    private let limit: TimeAmount
    private let driverIsClosed: () -> Bool

    /// The connection broke, or a statement was abandoned on it: the pool must drop it.
    private(set) var connectionBroke = false
    /// The schema this session's `SET [LOCAL] search_path TO schema` chose, for the advice of
    /// a missing privilege on a table.
    private var searchPath: String?

    init(
        connection: PostgresConnection, bridge: PostgresBlockingBridge, errors: PostgresErrorTranslator,
        limit: TimeAmount, logger: Logger, driverIsClosed: @escaping () -> Bool
    ) {
        self.connection = connection
        self.bridge = bridge
        self.errors = errors
        self.limit = limit
        self.logger = logger
        self.driverIsClosed = driverIsClosed
    }

    func query(_ sql: String, _ parameters: [SQLValue], _ row: ([SQLValue]) throws -> Void) throws {
        let result = try run(sql, parameters)
        for postgresRow in result.rows {
            var values: [SQLValue] = []
            values.reserveCapacity(postgresRow.count)
            for cell in postgresRow {
                do {
                    values.append(try PostgresValueCoding.value(of: cell))
                } catch let error as PostgresValueCoding.UnreadableValue {
                    throw StoreError(
                        .serverError, url: errors.address.url,
                        "A value of the result cannot be read: \(error). Statement: \(sql)",
                        underlying: error
                    )
                }
            }
            try row(values)
        }
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        // The command tag's count: "UPDATE 3", "INSERT 0 1", "DELETE 2", "MERGE 4" (which
        // postgres-nio leaves unparsed); none for "CREATE TABLE".
        let metadata = try run(sql, parameters).metadata
        if let rows = metadata.rows { return rows }
        let words = metadata.command.split(separator: " ")
        return words.count == 2 && words[0] == "MERGE" ? Int(words[1]) ?? 0 : 0
    }

    /// Runs `sql` and waits for all its rows.
    private func run(_ sql: String, _ parameters: [SQLValue]) throws(StoreError) -> PostgresQueryResult {
        if driverIsClosed() { throw errors.closed }
        if connectionBroke || connection.isClosed {
            connectionBroke = true
            throw errors.lost(ChannelError.alreadyClosed).error
        }
        if let index = parameters.firstIndex(where: { parameter in
            guard case .text(let text) = parameter else { return false }
            return text.utf8.contains(0)
        }) {
            throw errors.nulParameter(index + 1, statement: sql)
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: PostgresValueCoding.bindings(parameters))
        do {
            let result = try bridge.wait(for: connection.query(query, logger: logger), atMost: limit)
            for prefix in ["SET search_path TO ", "SET LOCAL search_path TO "] where sql.hasPrefix(prefix) {
                searchPath = String(sql.dropFirst(prefix.count))
            }
            return result
        } catch {
            if driverIsClosed() { throw errors.closed }
            let failure = errors.statementFailure(error, statement: sql, searchPath: searchPath)
            if failure.connectionBroke {
                connectionBroke = true
                // A statement may still be under way on it: close it so no later one waits behind it.
                connection.closeInBackground()
                logger.debug("A PostgreSQL connection broke", metadata: ["connection": "\(connection.id)", "error": "\(PostgresErrorTranslator.summary(of: error))"])
            }
            throw failure.error
        }
    }
}
