import Foundation

/// Which TLS check failed on a connection to PostgreSQL, or which TLS setting of the URL cannot
/// be used: the ``ObjectGraph/StoreError/underlying`` error of the ``ObjectGraph/StoreError``
/// the driver throws (`.connectionFailed` for a check made while connecting, `.cannotOpen` for a
/// certificate or key file that cannot be used). The store error's message says what to do.
///
/// ```swift
/// do {
///     let driver = try PostgresDriver(url: url)
/// } catch let error as StoreError {
///     if (error.underlying as? PostgresTLSError)?.reason == .hostNameMismatch { … }
/// }
/// ```
public struct PostgresTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check that failed.
    public enum Reason: String, Sendable, Equatable {
        /// The server's certificate was not signed by an authority of `sslrootcert` (or, with
        /// `sslrootcert=system`, by one this system trusts).
        case unknownCertificateAuthority
        /// The server's certificate is not made for the host name (or address) of the URL
        /// (`sslmode=verify-full`).
        case hostNameMismatch
        /// The server's certificate, or the authority that signed it, has expired; or the
        /// server refused the client certificate as expired.
        case certificateExpired
        /// The server's certificate, or its authority, is not valid yet (check the clock).
        case certificateNotYetValid
        /// The server's certificate failed verification for another reason.
        case certificateRejected
        /// The server refused the client certificate (`sslcert`), or asked for one and got none.
        case clientCertificateRejected
        /// `sslmode` requires TLS and the server does not offer it (its `ssl` setting is off).
        case serverDoesNotSupportTLS
        /// The TLS handshake failed for another reason (no common protocol version or cipher).
        case handshakeFailed
        /// A certificate or key file (`sslrootcert`, `sslcert`, `sslkey`) cannot be read or
        /// holds no certificate or key; ``PostgresTLSError/file`` names it.
        case unusableFile
        /// The key file (`sslkey`) may be read by other users; libpq refuses it too.
        case keyFileReadableByOthers
        /// The key of `sslkey` does not belong to the certificate of `sslcert`.
        case keyDoesNotMatchCertificate
    }

    /// The check that failed.
    public let reason: Reason
    /// The certificate or key file concerned, when there is one.
    public let file: String?

    /// A failure of `reason`, about `file` if given.
    public init(_ reason: Reason, file: String? = nil) {
        self.reason = reason
        self.file = file
    }

    public var description: String {
        "PostgresTLSError.\(reason.rawValue)" + (file.map { " (\($0))" } ?? "")
    }
}
