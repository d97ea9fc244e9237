import Foundation
import ObjectGraph
import ObjectGraphPostgres
import XCTest

/// Where the PostgreSQL driver finds a password (the URL, `PGPASSWORD`, the password file, as
/// libpq looks for it), and that a password never appears in an error, a log line, a
/// `description`, a `debugDescription` or a mirror (issue 29, docs/security.md). The role
/// `tlspassword` of the test server logs in with the password the script wrote.
final class PostgresPasswordTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("PostgresPassword-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A password file holding `text`, with `mode`.
    private func passwordFile(_ text: String, mode: Int = 0o600) throws -> String {
        let path = folder.appendingPathComponent("pgpass-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    // MARK: Sources

    func testThePasswordComesFromPGPASSWORD() throws {
        let server = try TLSTestServer.current()
        let facts = try TLSTestServer.sessionFacts(
            server.url(user: "tlspassword"), environment: ["PGPASSWORD": try server.password(), "PGPASSFILE": "/nonexistent"])
        XCTAssertEqual(facts.user, "tlspassword")
    }

    func testThePasswordComesFromTheFirstMatchingLineOfThePasswordFile() throws {
        let server = try TLSTestServer.current()
        let file = try passwordFile("""
            # host:port:database:user:password
            127.0.0.1:\(server.port):postgres:someone_else:wrong
            127.0.0.1:1:*:tlspassword:wrong-port
            *:\(server.port):postgres:tlspassword:\(try server.password())
            *:*:*:*:too-late
            """)
        let facts = try TLSTestServer.sessionFacts(server.url(user: "tlspassword"), environment: ["PGPASSFILE": file])
        XCTAssertEqual(facts.user, "tlspassword")
    }

    func testThePasswordFileDefaultsToPgpassInTheHomeFolder() throws {
        let server = try TLSTestServer.current()
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let file = try passwordFile("127.0.0.1:\(server.port):*:tlspassword:\(try server.password())\n")
        try FileManager.default.moveItem(atPath: file, toPath: home.appendingPathComponent(".pgpass").path)
        let facts = try TLSTestServer.sessionFacts(server.url(user: "tlspassword"), environment: ["HOME": home.path])
        XCTAssertEqual(facts.user, "tlspassword")
    }

    func testAPasswordFileOtherUsersMayReadIsSkippedWithAWarning() throws {
        let server = try TLSTestServer.current()
        let file = try passwordFile("*:*:*:tlspassword:\(try server.password())\n", mode: 0o644)
        let recorder = RecordingLogger()
        let error = expectStoreError {
            _ = try PostgresDriver(url: server.url(user: "tlspassword"), timeout: .seconds(10), logger: recorder.logger, environment: ["PGPASSFILE": file])
        }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertTrue(error?.message.contains("The password file \(file) was skipped because other users may read it: chmod 600 \(file).") == true, error?.message ?? "")
        XCTAssertTrue(recorder.lines.contains { $0.hasPrefix("warning Skipping the PostgreSQL password file") && $0.contains(file) }, "\(recorder.lines)")
    }

    func testTheURLsPasswordComesFirstAndAWrongOneNamesItsSource() throws {
        let server = try TLSTestServer.current()
        let right = try server.password()
        let error = expectStoreError {
            _ = try TLSTestServer.sessionFacts(server.url(user: "tlspassword", password: "wrong-url-password"), environment: ["PGPASSWORD": right])
        }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertTrue(error?.message.contains("refused the password of user \"tlspassword\", taken from the URL") == true, error?.message ?? "")
        let fromEnvironment = expectStoreError {
            _ = try TLSTestServer.sessionFacts(server.url(user: "tlspassword"), environment: ["PGPASSWORD": "wrong-environment-password"])
        }
        XCTAssertTrue(fromEnvironment?.message.contains("taken from PGPASSWORD") == true, fromEnvironment?.message ?? "")
        XCTAssertFalse(fromEnvironment?.description.contains("wrong-environment-password") ?? true)
    }

    func testNoPasswordAnywhereSaysWhereToPutOne() throws {
        let server = try TLSTestServer.current()
        let error = expectStoreError {
            _ = try TLSTestServer.sessionFacts(server.url(user: "tlspassword"), environment: ["PGPASSFILE": "/nonexistent/pgpass"])
        }
        XCTAssertEqual(error?.code, .connectionFailed)
        XCTAssertTrue(error?.message.contains("asks user \"tlspassword\" for a password and none was found. Put it in the URL") == true, error?.message ?? "")
    }

    // MARK: Never shown

    /// Every way a value can be turned into text.
    private func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(describing: value), String(reflecting: value), dumped]
    }

    private func assertHidden(_ password: String, in value: Any, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for text in renderings(value) {
            XCTAssertFalse(text.contains(password), "\(what) shows the password: \(text)", file: file, line: line)
        }
    }

    func testThePasswordIsNeverShownByADriverOrALocation() throws {
        let server = try TLSTestServer.current()
        let password = try server.password()
        let url = server.url(user: "tlspassword", password: password, ["sslrootcert": server.file("ca.crt")])
        let recorder = RecordingLogger()
        let driver = try PostgresDriver(url: url, timeout: .seconds(10), logger: recorder.logger)
        defer { driver.close() }
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT current_user::text") }, [[.text("tlspassword")]])
        assertHidden(password, in: driver, "the driver")
        XCTAssertTrue(driver.description.contains("tlspassword@127.0.0.1:\(server.port)/postgres"), driver.description)
        let location = PersistentContainer.Location.postgres(url)
        guard case .server(let serverLocation) = location else { return XCTFail("not a server location") }
        assertHidden(password, in: serverLocation, "the server location")
        assertHidden(password, in: location, "the container location")
        XCTAssertEqual(serverLocation.url, url, "the location keeps the password to connect with")
        XCTAssertFalse(serverLocation.redactedURL.contains(password))
        // A statement that fails, and the server's error behind it.
        let failure = expectStoreError { try driver.withSession { _ = try $0.rows("SELECT * FROM no_such_table") } }
        assertHidden(password, in: failure as Any, "a statement's error")
        XCTAssertFalse(recorder.lines.isEmpty, "the driver logged nothing at trace level")
        for line in recorder.lines { XCTAssertFalse(line.contains(password), "a log line shows the password: \(line)") }
    }

    func testThePasswordIsNeverShownByAConnectionError() throws {
        let server = try TLSTestServer.current()
        let password = "wrong-\(UUID().uuidString)"
        let recorder = RecordingLogger()
        let urls = [
            server.url(user: "tlspassword", password: password),  // refused by the server
            server.url(user: "tlspassword", password: password, host: "127.0.0.2", ["sslrootcert": server.file("ca.crt")]),  // a TLS check
            server.url(user: "tlspassword", password: password, ["sslrootcert": "/nonexistent.crt"]),  // a file
            server.url(user: "tlspassword", password: password, ["sslmode": "sometimes"]),  // an option
            URL(string: "postgres://tlspassword:\(password)@127.0.0.1:1/postgres")!,  // nothing listens
        ]
        for url in urls {
            let error = expectStoreError { _ = try PostgresDriver(url: url, timeout: .seconds(10), logger: recorder.logger, environment: [:]) }
            XCTAssertNotNil(error)
            assertHidden(password, in: error as Any, "the error for \(DatabaseServerLocation.redacted(url))")
            XCTAssertFalse(error?.url?.absoluteString.contains(password) ?? false)
            if let underlying = error?.underlying { assertHidden(password, in: underlying, "the underlying error") }
        }
        for line in recorder.lines { XCTAssertFalse(line.contains(password), "a log line shows the password: \(line)") }
        // And through a container, as an application opens the store.
        let containerError = expectStoreError {
            _ = try PersistentContainer(name: "League", entities: [Team.self, Player.self, Badge.self], store: .postgres(urls[0]))
        }
        XCTAssertEqual(containerError?.code, .connectionFailed)
        assertHidden(password, in: containerError as Any, "the container's error")
    }

    func testRedactionKeepsTheUserAndDropsOnlyThePassword() {
        XCTAssertEqual(
            DatabaseServerLocation.redacted(URL(string: "postgres://app:s3cret@db.example.com:5433/shop?sslmode=require")!),
            "postgres://app@db.example.com:5433/shop?sslmode=require")
        XCTAssertEqual(DatabaseServerLocation.redacted(URL(string: "postgres://app@db/shop")!), "postgres://app@db/shop")
    }
}
