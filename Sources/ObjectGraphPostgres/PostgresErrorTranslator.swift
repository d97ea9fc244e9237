import Foundation
import ObjectGraph
import PostgresNIO

/// Turns what postgres-nio and NIO throw into ``StoreError``s that say what went wrong and
/// what to do, and tells whether the connection can still be used.
struct PostgresErrorTranslator: Sendable {
    let address: PostgresServerAddress
    let timeout: Duration

    /// What a failed statement means for the caller and for the connection it ran on.
    struct StatementFailure: Error {
        let error: StoreError
        /// The connection broke (or was abandoned with a statement under way): drop it.
        let connectionBroke: Bool
    }

    private var server: String { "PostgreSQL at \(address.host):\(address.port)" }

    /// The error of every call after ``PostgresDriver/close()``.
    var closed: StoreError {
        StoreError(.closed, url: address.url, "The PostgreSQL store \(address.displayName) was closed. Open the store again to use it.")
    }

    /// A failure to connect or log in: `.connectionFailed` with the reason and what to do.
    func connectFailure(_ error: any Error) -> StoreError {
        StoreError(.connectionFailed, url: address.url, connectFailureMessage(error), underlying: error)
    }

    private func connectFailureMessage(_ error: any Error) -> String {
        if error is PostgresBlockingBridge.DeadlinePassed {
            return "\(server) did not finish the login within \(timeout). Check that the server is not overloaded, or give the driver a longer timeout."
        }
        guard let error = error as? PSQLError else { return unreachableMessage(error) }
        switch error.code {
        case .server:
            let sqlState = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "no message"
            switch sqlState {
            case "28P01":
                return "\(server) refused the password of user \"\(address.user)\". Check the password in the URL (postgres://user:password@host/database)."
            case "28000":
                return "\(server) refused user \"\(address.user)\": \(message). Check the user name in the URL, or allow this user and database in the server's pg_hba.conf."
            case "3D000":
                return "\(server) has no database \"\(address.database)\". Create it (createdb \(address.database), or CREATE DATABASE) or fix its name in the URL."
            case "53300":
                return "\(server) has no connection left (\(message)). Give the driver a smaller poolSize, close other clients, or raise the server's max_connections."
            case "57P03":
                return "\(server) is starting up or shutting down (\(message)). Try again in a moment."
            default:
                return "\(server) refused the connection: \(message) (SQLSTATE \(sqlState))."
            }
        case .authMechanismRequiresPassword:
            return "\(server) asks user \"\(address.user)\" for a password and the URL has none. Add it: postgres://user:password@host/database."
        case .unsupportedAuthMechanism, .saslError:
            return "\(server) asks for a kind of authentication this driver does not support (\(Self.summary(of: error))). Use password (scram-sha-256 or md5) or trust for this user in the server's pg_hba.conf."
        case .connectionError:
            return unreachableMessage(error.underlying ?? error)
        default:
            return "\(server) cannot be used: the connection failed during the login (\(error.code)). Check that the host and port belong to a PostgreSQL server."
        }
    }

    /// Why the server could not be reached at all.
    private func unreachableMessage(_ error: any Error) -> String {
        if let failure = error as? NIOConnectionError {
            if failure.connectionErrors.isEmpty, failure.dnsAError != nil || failure.dnsAAAAError != nil {
                return unknownHostMessage
            }
            if let first = failure.connectionErrors.first { return unreachableMessage(first.error) }
        }
        if error is SocketAddressError { return unknownHostMessage }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return "Nothing accepts connections at \(address.host):\(address.port) (connection refused). Start the PostgreSQL server, or fix the host and port in the URL."
        }
        if case ChannelError.connectTimeout = error {
            return "\(server) did not answer within \(timeout). Check the host and port in the URL, and that no firewall drops the connection."
        }
        return "\(server) cannot be reached: \(Self.summary(of: error)). Check the host and port in the URL and that the server runs."
    }

    private var unknownHostMessage: String {
        "The host name \"\(address.host)\" cannot be resolved. Check the host in the URL."
    }

    /// A failure of `statement` on an open connection.
    func statementFailure(_ error: any Error, statement: String?) -> StatementFailure {
        if error is PostgresBlockingBridge.DeadlinePassed {
            return failure(.timeout, "\(server) did not answer within \(timeout); the connection was closed, and the server rolls back a transaction under way. Check that the server is reachable and not overloaded, or give the driver a longer timeout.",
                underlying: error, connectionBroke: true)
        }
        guard let psqlError = error as? PSQLError else {
            return lost(error)
        }
        switch psqlError.code {
        case .server:
            return serverFailure(psqlError, statement: statement)
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
            .messageDecodingFailure, .unexpectedBackendMessage:
            return lost(psqlError)
        default:
            return failure(.serverError, "The statement could not be run (\(psqlError.code)). Check the statement and its parameters.",
                underlying: psqlError, connectionBroke: false)
        }
    }

    /// A failure with a ``StoreError`` of `code` about this server.
    private func failure(_ code: StoreError.Code, _ message: String, underlying: any Error & Sendable, connectionBroke: Bool) -> StatementFailure {
        StatementFailure(error: StoreError(code, url: address.url, message, underlying: underlying), connectionBroke: connectionBroke)
    }

    /// The connection broke: `.connectionLost`.
    func lost(_ error: any Error) -> StatementFailure {
        failure(.connectionLost, "The connection to \(server) broke (\(Self.summary(of: error))); the server rolled back a transaction under way. Run the work again: the next call connects anew.",
            underlying: error, connectionBroke: true)
    }

    private func serverFailure(_ error: PSQLError, statement: String?) -> StatementFailure {
        let info = error.serverInfo
        let sqlState = info?[.sqlState] ?? "XX000"
        let message = info?[.message] ?? "no message"
        // FATAL and PANIC end the session: the server closes the connection after sending them
        // (57P01 when an administrator terminated it).
        if let severity = info?[.severity], severity == "FATAL" || severity == "PANIC" { return lost(error) }
        if sqlState.hasPrefix("08") { return lost(error) }
        if sqlState == "57014" {
            return failure(.timeout, "The statement ran longer than the driver's timeout of \(timeout) and \(server) cancelled it; a transaction under way must be rolled back. Find what blocks it (a lock another connection holds) or give the driver a longer timeout.",
                underlying: DatabaseServerError(sqlState: sqlState, message: message, statement: statement), connectionBroke: false)
        }
        var text = "\(server) refused the statement: \(message) (SQLSTATE \(sqlState))."
        if let detail = info?[.detail] { text += " \(detail)" }
        if let hint = info?[.hint] { text += " Hint: \(hint)" }
        text += " " + advice(sqlState)
        return failure(.serverError, text,
            underlying: DatabaseServerError(sqlState: sqlState, message: message, statement: statement), connectionBroke: false)
    }

    /// A short account of `error` for messages and logs. PSQLError's own description is a
    /// fixed text (so that statements and data never leak into logs): this one names its code,
    /// the server's message and the error behind it, never the statement or its parameters.
    static func summary(of error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        var text = "\(error.code)"
        if let message = error.serverInfo?[.message] { text += ": \(message)" }
        if let underlying = error.underlying { text += ": \(summary(of: underlying))" }
        return text
    }

    /// What to do about an error of class `sqlState`.
    private func advice(_ sqlState: String) -> String {
        switch sqlState {
        case "40001", "40P01":
            return "Another transaction conflicted with this one; run the transaction again."
        case "25P02":
            return "An earlier statement of this transaction failed; roll the transaction back."
        case let state where state.hasPrefix("23"):
            return "The data breaks a constraint of the table; change the values."
        case let state where state.hasPrefix("42"):
            return "The statement does not fit the database's schema or PostgreSQL's syntax; fix the statement."
        case let state where state.hasPrefix("53"):
            return "The server is short of a resource (disk, memory, connections); free some on the server."
        default:
            return "Check the statement and the data it uses."
        }
    }
}
