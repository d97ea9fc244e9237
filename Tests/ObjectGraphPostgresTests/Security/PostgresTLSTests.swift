import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import XCTest

/// TLS to PostgreSQL (issue 29, docs/security.md): each `sslmode` against the test server
/// that `scripts/postgres-test-server.sh` starts with certificates made for the run, each
/// failed check as its own ``PostgresTLSError``, client certificates, and TLS options and
/// files that cannot be used.
final class PostgresTLSTests: XCTestCase {
    // MARK: Modes

    func testDisableConnectsWithoutTLS() throws {
        let server = try TLSTestServer.current()
        let facts = try TLSTestServer.sessionFacts(server.url(["sslmode": "disable"]))
        XCTAssertFalse(facts.tls)
    }

    func testWithoutOptionsTLSIsUsedWhenTheServerOffersIt() throws {
        let server = try TLSTestServer.current()
        XCTAssertTrue(try TLSTestServer.sessionFacts(server.url()).tls)
        XCTAssertTrue(try TLSTestServer.sessionFacts(server.url(["sslmode": "prefer"])).tls)
    }

    func testRequireEncryptsWithoutCheckingTheCertificate() throws {
        let server = try TLSTestServer.current()
        // 127.0.0.2 is not in the certificate, and no authority is given: require does not check.
        XCTAssertTrue(try TLSTestServer.sessionFacts(server.url(host: "127.0.0.2", ["sslmode": "require"])).tls)
    }

    func testVerifyCAChecksTheAuthorityAndNotTheHostName() throws {
        let server = try TLSTestServer.current()
        let url = server.url(host: "127.0.0.2", ["sslmode": "verify-ca", "sslrootcert": server.file("ca.crt")])
        XCTAssertTrue(try TLSTestServer.sessionFacts(url).tls)
    }

    func testVerifyFullConnectsByTheAddressAndTheNameTheCertificateHolds() throws {
        let server = try TLSTestServer.current()
        for host in ["127.0.0.1", "localhost"] {
            let url = server.url(host: host, ["sslmode": "verify-full", "sslrootcert": server.file("ca.crt")])
            XCTAssertTrue(try TLSTestServer.sessionFacts(url).tls, host)
        }
    }

    func testAStoreOpensOverVerifiedTLS() throws {
        let server = try TLSTestServer.current()
        let database = try server.newDatabase("tls_store")
        var components = try XCTUnwrap(URLComponents(url: database, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "sslrootcert", value: server.file("ca.crt")), URLQueryItem(name: "schema", value: "secured")]
        let url = try XCTUnwrap(components.url)
        let container = try PersistentContainer(name: "League", entities: [Team.self, Player.self, Badge.self], store: .postgres(url))
        defer { container.persistentStoreCoordinator.close() }
        let team = Team(context: container.viewContext)
        team.name = "over TLS"
        try container.viewContext.save()
        let encrypted = try PostgresTestServer.psql(
            "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = current_database() AND a.application_name = 'ManagedRecord' AND s.ssl",
            database: database)
        XCTAssertNotEqual(encrypted, "0", "the store's connections are not encrypted")
        let reader = try PersistentContainer(name: "League", entities: [Team.self, Player.self, Badge.self], store: .postgres(url))
        defer { reader.persistentStoreCoordinator.close() }
        XCTAssertEqual(try reader.viewContext.fetch(FetchRequest<Team>()).map(\.name), ["over TLS"])
    }

    // MARK: Failed checks

    func testVerifyFullRefusesAHostTheCertificateIsNotFor() throws {
        let server = try TLSTestServer.current()
        for options in [["sslmode": "verify-full", "sslrootcert": server.file("ca.crt")], ["sslrootcert": server.file("ca.crt")]] {
            let error = expectStoreError { _ = try TLSTestServer.sessionFacts(server.url(host: "127.0.0.2", options)) }
            XCTAssertEqual(error?.code, .connectionFailed)
            XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.hostNameMismatch), "\(error?.description ?? "")")
            XCTAssertTrue(error?.message.contains("not made for the host \"127.0.0.2\"") == true, error?.message ?? "")
        }
    }

    func testAnAuthorityThatDidNotSignTheServerCertificateIsRefused() throws {
        let server = try TLSTestServer.current()
        let other = server.file("other-ca.crt")
        // require with an authority checks it, as libpq does.
        for mode in ["verify-full", "verify-ca", "require"] {
            let error = expectStoreError { _ = try TLSTestServer.sessionFacts(server.url(["sslmode": mode, "sslrootcert": other])) }
            XCTAssertEqual(error?.code, .connectionFailed, mode)
            XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.unknownCertificateAuthority, file: other), "\(mode): \(error?.description ?? "")")
            XCTAssertTrue(error?.message.contains("was signed by ManagedRecord test authority") == true, error?.message ?? "")
            XCTAssertTrue(error?.message.contains("sslrootcert=\(other) holds another authority (Another authority") == true, error?.message ?? "")
        }
    }

    func testTheSystemsAuthoritiesDoNotTrustTheTestAuthority() throws {
        let server = try TLSTestServer.current()
        let error = expectStoreError { _ = try TLSTestServer.sessionFacts(server.url(["sslrootcert": "system"])) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.unknownCertificateAuthority), "\(error?.description ?? "")")
        XCTAssertTrue(error?.message.contains("which this system does not trust") == true, error?.message ?? "")
    }

    func testAnExpiredAuthorityIsRefused() throws {
        let server = try TLSTestServer.current()
        // The run's authority (same name and key) with a validity that ended on 2 January 2020.
        let expired = server.file("expired-ca.crt")
        let error = expectStoreError { _ = try TLSTestServer.sessionFacts(server.url(["sslrootcert": expired])) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.certificateExpired, file: expired), "\(error?.description ?? "")")
        XCTAssertTrue(error?.message.contains("expired on 2020-01-02") == true, error?.message ?? "")
    }

    func testRequireRefusesAServerWithoutTLSAndPreferFallsBackToPlain() throws {
        _ = try TLSTestServer.current()
        let plain = try ExtraTestServer.start("--no-tls")
        defer { plain.stop() }
        XCTAssertNil(plain.tlsFolder)
        let error = expectStoreError { _ = try TLSTestServer.sessionFacts(plain.url(["sslmode": "require"])) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.serverDoesNotSupportTLS), "\(error?.description ?? "")")
        XCTAssertTrue(error?.message.contains("does not offer TLS, and sslmode=require requires it") == true, error?.message ?? "")
        XCTAssertFalse(try TLSTestServer.sessionFacts(plain.url(["sslmode": "prefer"])).tls)
    }

    func testAnExpiredServerCertificateIsRefused() throws {
        _ = try TLSTestServer.current()
        let expired = try ExtraTestServer.start("--expired-certificate")
        defer { expired.stop() }
        let folder = try XCTUnwrap(expired.tlsFolder)
        let error = expectStoreError { _ = try TLSTestServer.sessionFacts(expired.url(["sslrootcert": folder + "/ca.crt"])) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.certificateExpired), "\(error?.description ?? "")")
        XCTAssertTrue(error?.message.contains("The server's certificate \"localhost\" expired on 2020-01-02") == true, error?.message ?? "")
        // require without an authority does not look at dates, as in libpq.
        XCTAssertTrue(try TLSTestServer.sessionFacts(expired.url(["sslmode": "require"])).tls)
    }

    // MARK: Client certificates

    func testAClientCertificateLogsIn() throws {
        let server = try TLSTestServer.current()
        let url = server.url(user: "tlsclient", [
            "sslrootcert": server.file("ca.crt"), "sslcert": server.file("client.crt"), "sslkey": server.file("client.key"),
        ])
        let facts = try TLSTestServer.sessionFacts(url)
        XCTAssertTrue(facts.tls)
        XCTAssertEqual(facts.user, "tlsclient")
    }

    func testALoginThatNeedsAClientCertificateWithoutOneIsRefused() throws {
        let server = try TLSTestServer.current()
        let error = expectStoreError { _ = try TLSTestServer.sessionFacts(server.url(user: "tlsclient", ["sslrootcert": server.file("ca.crt")])) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertEqual((error?.underlying as? PostgresTLSError)?.reason, .clientCertificateRejected, "\(error?.description ?? "")")
        XCTAssertTrue(error?.message.contains("sslcert=PATH and sslkey=PATH") == true, error?.message ?? "")
    }

    func testAnExpiredClientCertificateIsRefused() throws {
        let server = try TLSTestServer.current()
        let expired = server.file("expired-client.crt")
        let url = server.url(user: "tlsclient", ["sslrootcert": server.file("ca.crt"), "sslcert": expired, "sslkey": server.file("client.key")])
        let error = expectStoreError { _ = try TLSTestServer.sessionFacts(url) }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertEqual(error?.underlying as? PostgresTLSError, PostgresTLSError(.certificateExpired, file: expired), "\(error?.description ?? "")")
        XCTAssertTrue(error?.message.contains("refused the client certificate sslcert=\(expired): it has expired") == true, error?.message ?? "")
    }

    // MARK: Files and options that cannot be used

    func testCertificateAndKeyFilesThatCannotBeUsedAreNamed() throws {
        let server = try TLSTestServer.current()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appendingPathComponent("missing.crt").path
        let notPEM = folder.appendingPathComponent("not-pem.crt").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: notPEM)
        let openKey = folder.appendingPathComponent("open.key").path
        try FileManager.default.copyItem(atPath: server.file("client.key"), toPath: openKey)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: openKey)
        let cases: [([String: String], PostgresTLSError, String)] = [
            (["sslrootcert": missing], PostgresTLSError(.unusableFile, file: missing), "The file of sslrootcert=\(missing) does not exist"),
            (["sslrootcert": folder.path], PostgresTLSError(.unusableFile, file: folder.path), "is a folder, not a file"),
            (["sslrootcert": notPEM], PostgresTLSError(.unusableFile, file: notPEM), "sslrootcert=\(notPEM) holds no PEM certificate"),
            (["sslcert": notPEM, "sslkey": server.file("client.key")], PostgresTLSError(.unusableFile, file: notPEM), "sslcert=\(notPEM) holds no PEM certificate"),
            (["sslcert": server.file("client.crt"), "sslkey": notPEM], PostgresTLSError(.unusableFile, file: notPEM), "sslkey=\(notPEM) holds no private key"),
            (["sslcert": server.file("client.crt"), "sslkey": missing], PostgresTLSError(.unusableFile, file: missing), "The file of sslkey=\(missing) does not exist"),
            (["sslcert": server.file("client.crt"), "sslkey": openKey], PostgresTLSError(.keyFileReadableByOthers, file: openKey), "chmod 600 \(openKey)"),
            (["sslcert": server.file("client.crt"), "sslkey": server.file("other-ca.key")],
             PostgresTLSError(.keyDoesNotMatchCertificate, file: server.file("other-ca.key")), "does not belong to the certificate"),
        ]
        for (options, expected, text) in cases {
            let error = expectStoreError { _ = try PostgresDriver(url: server.url(user: "tlsclient", options)) }
            XCTAssertEqual(error?.code, .cannotOpen, "\(options)")
            XCTAssertEqual(error?.underlying as? PostgresTLSError, expected, "\(options): \(error?.description ?? "")")
            XCTAssertTrue(error?.message.contains(text) == true, "\(options): \(error?.message ?? "")")
        }
    }

    func testTLSOptionsThatCannotBeUsedAreRefusedBeforeConnecting() {
        // No server is reached: port 1 on loopback.
        let cases: [(String, String)] = [
            ("sslmode=allow", "allow (plain first, TLS if refused) is not supported"),
            ("sslmode=verify", "has sslmode=verify, which is not one of disable, prefer, require, verify-ca, verify-full"),
            ("sslmode=require&sslrootcert=system", "only verify-full is taken with them"),
            ("sslmode=verify-full", "has sslmode=verify-full and no sslrootcert"),
            ("sslmode=verify-ca", "has sslmode=verify-ca and no sslrootcert"),
            ("sslmode=disable&sslcert=/c.crt&sslkey=/c.key", "has sslmode=disable with sslcert"),
            ("sslcert=/c.crt", "has sslcert without sslkey"),
            ("sslkey=/c.key", "has sslkey without sslcert"),
            ("sslmode=require&sslmode=disable", "gives the option sslmode twice"),
            ("sslrootcert=", "has an empty sslrootcert= option"),
            ("sslcompression=1", "has the option \"sslcompression\", which this driver does not take"),
        ]
        for (query, text) in cases {
            let error = expectStoreError { _ = try PostgresDriver(url: URL(string: "postgres://u:pw-in-url@127.0.0.1:1/db?\(query)")!) }
            XCTAssertEqual(error?.code, .cannotOpen, query)
            XCTAssertTrue(error?.message.contains(text) == true, "\(query): \(error?.message ?? "")")
            XCTAssertFalse(error?.description.contains("pw-in-url") ?? true, error?.description ?? "")
        }
    }
}

/// A test server started by `scripts/postgres-test-server.sh start [OPTION]`: the TLS server
/// of a plain `swift test` (``TLSTestServer``), and with `--no-tls` or `--expired-certificate`
/// a second one for the checks the shared server cannot show.
struct ExtraTestServer: Sendable {
    let url: URLComponents
    let folder: String
    /// The run's certificates; nil without TLS.
    let tlsFolder: String?
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-test-server.sh").path

    static func start(_ option: String? = nil) throws -> ExtraTestServer {
        let output = try run(["start"] + (option.map { [$0] } ?? []))
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { values[String(pair[0])] = String(pair[1]) }
        }
        guard let text = values["MANAGEDRECORD_POSTGRES_URL"], let url = URLComponents(string: text),
              let folder = values["MANAGEDRECORD_POSTGRES_FOLDER"] else {
            throw XCTSkip("the script printed no server: \(output)")
        }
        return ExtraTestServer(url: url, folder: folder, tlsFolder: values["MANAGEDRECORD_POSTGRES_TLS_FOLDER"])
    }

    func url(_ options: [String: String]) -> URL {
        var components = url
        components.queryItems = options.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.url!
    }

    func stop() { _ = try? Self.run(["stop", folder]) }

    /// Runs the script with `arguments` and returns its standard output. Spawned and waited
    /// for directly: Foundation's `Process` waits for a socket the server it starts keeps open.
    private static func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("plain-server-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ)
        guard spawned == 0 else { throw XCTSkip("could not run \(script): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        if status != 0 {
            XCTFail("\(script) \(arguments.joined(separator: " ")) ended with wait status \(status): \(text)")
        }
        return text
    }
}
