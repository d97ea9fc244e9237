import Foundation
import NIOSSL
import ObjectGraph
import PostgresNIO

/// Turns what postgres-nio and NIO throw into ``StoreError``s that say what went wrong and
/// what to do, and tells whether the connection can still be used.
struct PostgresErrorTranslator: Sendable {
    let address: PostgresServerAddress
    let timeout: Duration
    /// The driver's event loops, for the probe that tells why a certificate was refused.
    let group: MultiThreadedEventLoopGroup

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
    /// A TLS failure is `.connectionFailed` too, with a ``PostgresTLSError`` saying which
    /// check failed as `underlying`.
    func connectFailure(_ error: any Error) -> StoreError {
        if let (tlsError, message) = tlsFailure(error) {
            return StoreError(.connectionFailed, url: address.url, message, underlying: tlsError)
        }
        return StoreError(.connectionFailed, url: address.url, connectFailureMessage(error), underlying: error)
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
                guard let password = address.password else {
                    return "\(server) refused user \"\(address.user)\" without a password. \(passwordAdvice)"
                }
                return "\(server) refused the password of user \"\(address.user)\", taken from \(password.source). Check it there (the URL's postgres://user:password@host/database comes first, then PGPASSWORD, then the password file)."
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
            return "\(server) asks user \"\(address.user)\" for a password and none was found. \(passwordAdvice)"
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

    /// Where a password can be given, and why the password file was skipped if it was.
    private var passwordAdvice: String {
        var text = "Put it in the URL (postgres://user:password@host/database), in PGPASSWORD, or in the password file (PGPASSFILE, else ~/.pgpass: host:port:database:user:password, mode 0600)."
        if let ignored = address.ignoredPasswordFile {
            text += " The password file \(ignored) was skipped because other users may read it: chmod 600 \(ignored)."
        }
        return text
    }

    private var unknownHostMessage: String {
        "The host name \"\(address.host)\" cannot be resolved. Check the host in the URL."
    }

    // MARK: TLS

    /// The TLS check `error` (as postgres-nio reports it, from NIOSSL and BoringSSL) says
    /// failed, and what to do; nil when it is no TLS failure.
    private func tlsFailure(_ error: any Error) -> (PostgresTLSError, String)? {
        let mode = "sslmode=\(address.tls.mode.rawValue)"
        if let psqlError = error as? PSQLError {
            if psqlError.code == .sslUnsupported {
                return (PostgresTLSError(.serverDoesNotSupportTLS), "\(server) does not offer TLS, and \(mode) requires it. Turn TLS on in the server (ssl = on, with ssl_cert_file and ssl_key_file), or, on a trusted network only, use sslmode=prefer or disable.")
            }
            if psqlError.code == .server, psqlError.serverInfo?[.sqlState] == "28000",
               let message = psqlError.serverInfo?[.message], message.contains("certificate") {
                let file = address.tls.clientCertificate
                return (PostgresTLSError(.clientCertificateRejected, file: file), "\(server) refused the login of user \"\(address.user)\" for its client certificate: \(message). \(file == nil ? "Give one with sslcert=PATH and sslkey=PATH" : "Give a certificate whose common name is the user name, signed by the authority of the server's ssl_ca_file").")
            }
            return psqlError.underlying.flatMap(tlsFailure)
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return (PostgresTLSError(.hostNameMismatch), "The certificate of \(server) is not made for the host \"\(address.host)\" (\(mode) checks the name). Connect with a name the certificate holds (its subject alternative names), or make the server a certificate for \"\(address.host)\". sslmode=verify-ca skips the name check.")
        }
        // A failed handshake; or, after it, an alert the server sent about the client certificate.
        let failure: BoringSSLError
        if case NIOSSLError.handshakeFailed(let handshake) = error {
            failure = handshake
        } else if let alert = error as? BoringSSLError {
            failure = alert
        } else {
            return nil
        }
        let text = "\(failure)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") { return certificateFailure() }
        let client = address.tls.clientCertificate
        if text.contains("ALERT_CERTIFICATE_EXPIRED") {
            return (PostgresTLSError(.certificateExpired, file: client), "\(server) refused the client certificate\(client.map { " sslcert=\($0)" } ?? ""): it has expired. Renew it with the authority the server trusts (ssl_ca_file).")
        }
        if text.contains("ALERT_UNKNOWN_CA") || text.contains("ALERT_BAD_CERTIFICATE") || text.contains("CERTIFICATE_REQUIRED")
            || text.contains("ALERT_CERTIFICATE_UNKNOWN") || text.contains("ALERT_ACCESS_DENIED") {
            return (PostgresTLSError(.clientCertificateRejected, file: client), "\(server) refused the client certificate\(client.map { " sslcert=\($0)" } ?? "") during the TLS handshake (\(text)). Give a certificate signed by the authority of the server's ssl_ca_file.")
        }
        return (PostgresTLSError(.handshakeFailed), "The TLS handshake with \(server) failed (\(text)). Check that the server's TLS settings (ssl_min_protocol_version, ssl_ciphers) allow TLS 1.2 or later.")
    }

    /// The server's certificate failed verification: looks at what the server presents to say
    /// which check failed.
    private func certificateFailure() -> (PostgresTLSError, String) {
        let authorityFile: String?
        let authorities: [NIOSSLCertificate]?
        switch address.tls.authorities {
        case .file(let path):
            authorityFile = path
            authorities = (try? NIOSSLCertificate.fromPEMFile(path)) ?? []
        case .system, nil:
            authorityFile = nil
            authorities = nil
        }
        let presented = PostgresCertificateProbe.presentedChain(
            host: address.host, port: address.port, group: group, bridge: PostgresBlockingBridge(group: group),
            limit: min(timeout, .seconds(10)).timeAmount
        )
        guard let presented else {
            return (PostgresTLSError(.certificateRejected), "The certificate of \(server) failed verification against \(authorityFile.map { "sslrootcert=\($0)" } ?? "the system's authorities"). Check that it was signed by that authority and has not expired.")
        }
        let (error, detail) = PostgresCertificateProbe.diagnose(presented: presented, authorities: authorities, authorityFile: authorityFile)
        return (error, "\(server) is not trusted: \(detail)")
    }

    /// A failure of `statement` on an open connection whose statements run in `searchPath`
    /// (when the session set it).
    func statementFailure(_ error: any Error, statement: String?, searchPath: String? = nil) -> StatementFailure {
        if error is PostgresBlockingBridge.DeadlinePassed {
            return failure(.timeout, "\(server) did not answer within \(timeout); the connection was closed, and the server rolls back a transaction under way. Check that the server is reachable and not overloaded, or give the driver a longer timeout.",
                underlying: error, connectionBroke: true)
        }
        guard let psqlError = error as? PSQLError else {
            return lost(error)
        }
        switch psqlError.code {
        case .server:
            return serverFailure(psqlError, statement: statement, searchPath: searchPath)
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown,
            .messageDecodingFailure, .unexpectedBackendMessage:
            return lost(psqlError)
        default:
            return failure(.serverError, "The statement could not be run (\(psqlError.code)). Check the statement and its parameters.",
                underlying: psqlError, connectionBroke: false)
        }
    }

    /// Text holding NUL (U+0000) bound to parameter `number` (from 1): refused before it is
    /// sent, as PostgreSQL's text cannot hold it (the server would answer SQLSTATE 22021,
    /// naming nothing).
    func nulParameter(_ number: Int, statement: String) -> StoreError {
        StoreError(.serverError, url: address.url,
                   "The text bound to parameter $\(number) holds the NUL character (U+0000), which PostgreSQL cannot store in text; the statement was not sent. Remove the NUL characters, or bind such values as bytes (a Data value, bytea).",
                   underlying: DatabaseServerError.nulInText(statement: statement))
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

    private func serverFailure(_ error: PSQLError, statement: String?, searchPath: String?) -> StatementFailure {
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
        let code = PostgresRefusalAdvice.conditionName(sqlState).map { "\(sqlState) \($0)" } ?? sqlState
        var text = "\(server) refused: \(message) (SQLSTATE \(code))."
        if let detail = info?[.detail] { text += " \(detail)" }
        if let hint = info?[.hint] { text += " Hint: \(hint)" }
        text += " " + PostgresRefusalAdvice(sqlState: sqlState, message: message, role: address.user, statement: statement, searchPath: searchPath).text
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
}
