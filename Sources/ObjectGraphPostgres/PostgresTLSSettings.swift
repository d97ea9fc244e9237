import Foundation
import NIOSSL
import ObjectGraph
import PostgresNIO

/// The TLS options of a PostgreSQL URL (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`), with
/// libpq's meaning, and the postgres-nio TLS setting made from them.
struct PostgresTLSSettings: Sendable, Equatable {
    /// libpq's `sslmode` values this driver takes (`allow` is not one: postgres-nio cannot
    /// try a plain connection first and TLS after).
    enum Mode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// Where the authorities that may sign the server's certificate come from.
    enum Authorities: Sendable, Equatable {
        /// A PEM file of one or more certificates (`sslrootcert=PATH`).
        case file(String)
        /// The system's trusted authorities (`sslrootcert=system`).
        case system
    }

    /// How the server's certificate is checked once TLS is on.
    enum Verification: Sendable, Equatable {
        /// Not at all (`prefer` and `require` without `sslrootcert`): encrypted, but a machine
        /// in between can pose as the server.
        case none
        /// Signed by one of the authorities (`verify-ca`, and `require` or `prefer` with `sslrootcert`).
        case authority
        /// Signed by one of the authorities and made for the URL's host (`verify-full`).
        case authorityAndHost
    }

    let mode: Mode
    let authorities: Authorities?
    let clientCertificate: String?
    let clientKey: String?

    /// The URL's query options that are TLS settings.
    static let optionNames: Set<String> = ["sslmode", "sslrootcert", "sslcert", "sslkey"]

    /// How the server's certificate is checked: libpq's rules, where `require` with an
    /// authority file verifies the authority, as `verify-ca` does.
    var verification: Verification {
        switch mode {
        case .disable: .none
        case .prefer, .require: authorities == nil ? .none : .authority
        case .verifyCA: .authority
        case .verifyFull: .authorityAndHost
        }
    }

    /// The settings of `options` (the TLS ones of a URL's query); `malformed` makes the error
    /// for a value that cannot be used (named by its option, never with the URL's password).
    ///
    /// Without `sslmode`: `verify-full` when `sslrootcert` is given, else `prefer` (libpq's
    /// default: TLS when the server offers it, not verified).
    init(options: [String: String], malformed: (String) -> StoreError) throws(StoreError) {
        let modeText = options["sslmode"]
        let authorities: Authorities? = options["sslrootcert"].map { $0 == "system" ? .system : .file($0) }
        let mode: Mode
        if let modeText {
            guard let given = Mode(rawValue: modeText) else {
                let hint = modeText == "allow"
                    ? "; allow (plain first, TLS if refused) is not supported: use prefer, or disable"
                    : ""
                throw malformed("has sslmode=\(modeText), which is not one of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))\(hint)")
            }
            mode = given
        } else {
            mode = authorities == nil ? .prefer : .verifyFull
        }
        if authorities == .system, mode != .verifyFull {
            throw malformed("has sslrootcert=system with sslmode=\(mode.rawValue): the system's authorities vouch for names, so only verify-full is taken with them (as libpq does). Use sslmode=verify-full, or leave sslmode out")
        }
        if (mode == .verifyCA || mode == .verifyFull), authorities == nil {
            throw malformed("has sslmode=\(mode.rawValue) and no sslrootcert: add sslrootcert=PATH (a PEM file of the authority that signed the server's certificate) or sslrootcert=system")
        }
        let clientCertificate = options["sslcert"], clientKey = options["sslkey"]
        if mode == .disable, let option = ["sslrootcert", "sslcert", "sslkey"].first(where: { options[$0] != nil }) {
            throw malformed("has sslmode=disable with \(option): a connection without TLS uses no certificate. Remove \(option), or choose another sslmode")
        }
        if (clientCertificate == nil) != (clientKey == nil) {
            throw malformed("has \(clientCertificate == nil ? "sslkey without sslcert" : "sslcert without sslkey"): give both the client certificate (sslcert=PATH) and its key (sslkey=PATH)")
        }
        for (option, value) in options where value.isEmpty {
            throw malformed("has an empty \(option)= option: give it a value or remove it")
        }
        self.mode = mode
        self.authorities = authorities
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    /// postgres-nio's TLS setting: the certificate and key files are read now (a changed file
    /// is read by a new driver). `fail` makes the error for a file that cannot be used.
    func connectionTLS(fail: (String, PostgresTLSError) -> StoreError) throws(StoreError) -> PostgresConnection.Configuration.TLS {
        if mode == .disable { return .disable }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch verification {
        case .none: configuration.certificateVerification = .none
        case .authority: configuration.certificateVerification = .noHostnameVerification
        case .authorityAndHost: configuration.certificateVerification = .fullVerification
        }
        switch authorities {
        case .file(let path):
            configuration.trustRoots = .certificates(try Self.certificates(in: path, option: "sslrootcert", fail: fail))
        case .system:
            configuration.trustRoots = .default
        case nil:
            break
        }
        if let certificatePath = clientCertificate, let keyPath = clientKey {
            let chain = try Self.certificates(in: certificatePath, option: "sslcert", fail: fail)
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.privateKey(in: keyPath, fail: fail))
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            if let certificate = clientCertificate, let key = clientKey {
                throw fail(
                    "The key in sslkey=\(key) does not belong to the certificate in sslcert=\(certificate) (\(error)). Give the key made with that certificate.",
                    PostgresTLSError(.keyDoesNotMatchCertificate, file: key)
                )
            }
            throw fail("TLS cannot be set up: \(error).", PostgresTLSError(.handshakeFailed))
        }
        return mode == .prefer ? .prefer(context) : .require(context)
    }

    /// The certificates of the PEM file at `path`, given as `option`.
    private static func certificates(
        in path: String, option: String, fail: (String, PostgresTLSError) -> StoreError
    ) throws(StoreError) -> [NIOSSLCertificate] {
        try readable(path, option: option, fail: fail)
        let certificates = try? NIOSSLCertificate.fromPEMFile(path)
        guard let certificates, !certificates.isEmpty else {
            throw fail(
                "\(option)=\(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----). Give the certificate file in PEM form (openssl x509 -in FILE -outform PEM converts a DER one).",
                PostgresTLSError(.unusableFile, file: path)
            )
        }
        return certificates
    }

    /// The private key of the PEM file at `path` (`sslkey`), which others may not read.
    private static func privateKey(in path: String, fail: (String, PostgresTLSError) -> StoreError) throws(StoreError) -> NIOSSLPrivateKey {
        try readable(path, option: "sslkey", fail: fail)
        // libpq's rule: a key of this user is not for the group or others (0600 or less); one
        // of root's may be read by its group (0640 or less).
        var status = stat()
        if stat(path, &status) == 0 {
            let mode = status.st_mode & 0o777
            let tooOpen = status.st_uid == geteuid() ? mode & 0o077 != 0 : status.st_uid == 0 && mode & 0o037 != 0
            if tooOpen {
                throw fail(
                    "The key file sslkey=\(path) may be read by other users (mode \(String(mode, radix: 8))). Make it private: chmod 600 \(path).",
                    PostgresTLSError(.keyFileReadableByOthers, file: path)
                )
            }
        }
        do {
            return try NIOSSLPrivateKey(file: path, format: .pem)
        } catch {
            throw fail(
                "sslkey=\(path) holds no private key in PEM form (-----BEGIN PRIVATE KEY-----), or one protected by a passphrase, which this driver cannot unlock. Give the unencrypted key (openssl pkey -in FILE -out KEY).",
                PostgresTLSError(.unusableFile, file: path)
            )
        }
    }

    /// Throws when the file at `path` cannot be read, saying why.
    private static func readable(_ path: String, option: String, fail: (String, PostgresTLSError) -> StoreError) throws(StoreError) {
        var isDirectory: ObjCBool = false
        let reason: String
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            reason = "does not exist"
        } else if isDirectory.boolValue {
            reason = "is a folder, not a file"
        } else if !FileManager.default.isReadableFile(atPath: path) {
            reason = "cannot be read by this process (its permissions)"
        } else {
            return
        }
        throw fail(
            "The file of \(option)=\(path) \(reason). Fix the path in the URL (an absolute path is safest), or the file's permissions.",
            PostgresTLSError(.unusableFile, file: path)
        )
    }
}
