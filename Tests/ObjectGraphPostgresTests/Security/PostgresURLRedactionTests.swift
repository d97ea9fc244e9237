import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import XCTest

/// A secret in a PostgreSQL URL never reaches text (issue 43, docs/security.md): random URLs
/// with the secret in the user info or in a `password`/`sslpassword` option (any case, any
/// place among the other options, percent-encoded or not) are turned into every text the
/// library makes of them — the locations' descriptions, mirrors and `redactedURL`, the
/// driver's and the container's errors (message, `description`, `url`, underlying), the
/// store's URL, and the driver's log lines at trace level — and none may hold the secret.
///
/// Seeded; the seed is printed on failure. `MANAGEDRECORD_REDACTION_CASES` sets the number of
/// URLs (default 40), `MANAGEDRECORD_REDACTION_SEED` the first seed.
final class PostgresURLRedactionTests: XCTestCase {
    /// SplitMix64: the same URLs for the same seed.
    private struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Where a case puts its secret.
    private enum Place: CaseIterable {
        case userInfo, password, sslpassword, upperCasePassword, mixedCasePassword, encodedOptionName
    }

    /// Every way a value can be turned into text.
    private func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(reflecting: value), dumped]
    }

    /// Texts of a StoreError: its renderings, its URL, its underlying error's renderings.
    private func texts(of error: any Error) -> [String] {
        var texts = renderings(error)
        if let error = error as? StoreError {
            texts.append(error.message)
            texts.append(error.url?.absoluteString ?? "")
            if let underlying = error.underlying { texts += renderings(underlying) }
        }
        return texts
    }

    /// A secret of 12 to 20 characters, some of which a URL must percent-encode.
    private func secret(_ random: inout Random) -> String {
        let plain = Array("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let special = Array("@:/?#&=%+ ;$!")
        var text = "S"
        for _ in 0..<Int.random(in: 11...19, using: &random) {
            text.append(Int.random(in: 0..<5, using: &random) == 0 ? special.randomElement(using: &random)! : plain.randomElement(using: &random)!)
        }
        return text
    }

    /// `text` percent-encoded for a user info or a query value (only unreserved characters stay).
    private func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))!
    }

    /// A URL of the test server (`server`: scheme, user, host, port, database) with `secret`
    /// at `place`, among random other options in a random order, some of which the store
    /// refuses (an unknown option, a bad schema name).
    /// Also returns the secret as the URL writes it.
    private func url(_ server: URLComponents, secret: String, place: Place, _ random: inout Random) -> (URL, written: String) {
        var authority = "\(server.user ?? "managedrecord")"
        var written = encoded(secret)
        if place == .userInfo { authority += ":" + written }
        authority += "@\(server.host ?? "127.0.0.1"):\(server.port ?? 5432)"
        var options: [String] = []
        if Bool.random(using: &random) { options.append("sslmode=" + ["disable", "prefer", "sometimes"].randomElement(using: &random)!) }
        if Bool.random(using: &random) { options.append("schema=" + ["coredata", "redaction", "Not-A-Name"].randomElement(using: &random)!) }
        if Int.random(in: 0..<4, using: &random) == 0 { options.append("application_name=test") }
        let value = Bool.random(using: &random) ? encoded(secret) : secret.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#")))!
        if place != .userInfo { written = value }
        switch place {
        case .userInfo: break
        case .password: options.append("password=" + value)
        case .sslpassword: options.append("sslpassword=" + value)
        case .upperCasePassword: options.append("PASSWORD=" + value)
        case .mixedCasePassword: options.append(["Password=", "SSLPassword=", "sslPassWord="].randomElement(using: &random)! + value)
        case .encodedOptionName: options.append("pass%77ord=" + value)
        }
        options.shuffle(using: &random)
        let scheme = Bool.random(using: &random) ? "postgres" : "postgresql"
        let text = "\(scheme)://\(authority)\(server.path)" + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
        return (URL(string: text)!, written)
    }

    func testNoTextTheLibraryMakesOfAURLHoldsItsPassword() throws {
        let database = try PostgresTestServer.newDatabase("redaction")
        let server = try XCTUnwrap(URLComponents(url: database, resolvingAgainstBaseURL: false))
        let environment = ProcessInfo.processInfo.environment
        let cases = environment["MANAGEDRECORD_REDACTION_CASES"].flatMap(Int.init) ?? 40
        let seed = environment["MANAGEDRECORD_REDACTION_SEED"].flatMap(UInt64.init) ?? 43
        let recorder = RecordingLogger()
        var opened = 0, refused = 0
        for number in 0..<cases {
            var random = Random(state: seed &+ UInt64(number))
            let secret = secret(&random)
            let place = Place.allCases[number % Place.allCases.count]
            let (url, written) = url(server, secret: secret, place: place, &random)
            var produced: [String] = []
            // The locations, as an application writes them.
            let location = PersistentContainer.Location.postgres(url)
            produced += renderings(location)
            if case .server(let serverLocation) = location {
                produced += renderings(serverLocation)
                produced.append(serverLocation.redactedURL)
            }
            produced.append(DatabaseServerLocation.redacted(url))
            // The driver: connected, or its error.
            do {
                let driver = try PostgresDriver(url: url, timeout: .seconds(10), poolSize: 1, logger: recorder.logger, environment: [:])
                produced += renderings(driver)
                do {
                    _ = try driver.withSession { try $0.rows("SELECT * FROM no_such_table_\(number)") }
                } catch {
                    produced += texts(of: error)
                }
                driver.close()
            } catch {
                produced += texts(of: error)
            }
            // The container: opened (read-only on a schema that may not exist yet, or writable), or its error.
            do {
                let options: PersistentContainer.Options = Bool.random(using: &random) ? [.readOnly] : []
                let container = try PersistentContainer(name: "League", entities: [Team.self, Player.self, Badge.self], store: url.postgresLocation, options: options)
                opened += 1
                produced.append(container.persistentStoreCoordinator.storeURL?.absoluteString ?? "")
                produced += renderings(container.persistentStoreCoordinator.storeURL as Any)
                let context = container.viewContext
                let player = Player(context: context)
                player.name = "x\u{0}"
                do { try context.save() } catch { produced += texts(of: error) }
                container.persistentStoreCoordinator.close()
                do { _ = try context.count(for: FetchRequest<Player>()) } catch { produced += texts(of: error) }
            } catch {
                refused += 1
                produced += texts(of: error)
            }
            produced += recorder.lines
            let forms = [secret, encoded(secret), written]
            for text in produced where forms.contains(where: text.contains) {
                XCTFail("case \(number) (seed \(seed &+ UInt64(number)), secret in \(place)): \(url.absoluteString.replacingOccurrences(of: written, with: "<SECRET>")) shows its secret in: \(text)")
                break
            }
        }
        XCTAssertGreaterThan(opened, 0, "no case opened a container: the test checks only errors")
        XCTAssertGreaterThan(refused, 0, "no case was refused: the test checks no error")
    }

    func testRedactionHidesEveryPasswordOptionAndKeepsTheRest() {
        XCTAssertEqual(
            DatabaseServerLocation.redacted(URL(string: "postgres://app:s3cret@db.example.com:5433/shop?sslmode=require")!),
            "postgres://app@db.example.com:5433/shop?sslmode=require")
        XCTAssertEqual(
            DatabaseServerLocation.redacted(URL(string: "postgres://app@db/shop?sslmode=require&password=Secr3t&schema=billing")!),
            "postgres://app@db/shop?sslmode=require&password=***&schema=billing")
        XCTAssertEqual(
            DatabaseServerLocation.redacted(URL(string: "postgresql://app:a%40b@db/shop?PassWord=x&SSLPASSWORD=y&pass%77ord=z")!),
            "postgresql://app@db/shop?PassWord=***&SSLPASSWORD=***&pass%77ord=***")
        XCTAssertEqual(DatabaseServerLocation.redacted(URL(string: "postgres://app@db/shop?passwords=kept")!),
                       "postgres://app@db/shop?passwords=kept")
    }

    /// A `#` left unencoded in a password option starts a fragment for `URL` (libpq reads it as
    /// part of the value): the rest of the password was shown after `password=***`.
    func testAFragmentIsNeverShown() {
        XCTAssertEqual(DatabaseServerLocation.redacted(URL(string: "postgres://app@db/shop?password=Secr#3tTail")!),
                       "postgres://app@db/shop?password=***#***")
        XCTAssertEqual(DatabaseServerLocation.redacted(URL(string: "postgres://app@db/shop#Tail")!), "postgres://app@db/shop#***")
    }

    func testAPasswordOptionLogsInAndOneGivenTwiceIsRefused() throws {
        let database = try PostgresTestServer.newDatabase("passwordoption")
        var components = try XCTUnwrap(URLComponents(url: database, resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "sslmode", value: "disable"), URLQueryItem(name: "password", value: "Secr3t")]
        let driver = try PostgresDriver(url: components.url!, timeout: .seconds(10), poolSize: 1, environment: [:])
        XCTAssertEqual(try driver.withSession { try $0.rows("SELECT 1") }, [[.integer(1)]])
        driver.close()
        components.password = "Other"
        let twice = expectStoreError { _ = try PostgresDriver(url: components.url!, timeout: .seconds(10), environment: [:]) }
        XCTAssertEqual(twice?.code, .cannotOpen)
        XCTAssertTrue(twice?.message.contains("gives the password twice") == true, twice?.message ?? "")
        XCTAssertFalse(twice.map(texts(of:))?.contains { $0.contains("Secr3t") || $0.contains("Other") } ?? true)
        components.password = nil
        components.queryItems = [URLQueryItem(name: "sslpassword", value: "Secr3t")]
        let passphrase = expectStoreError { _ = try PostgresDriver(url: components.url!, timeout: .seconds(10), environment: [:]) }
        XCTAssertEqual(passphrase?.code, .cannotOpen)
        XCTAssertTrue(passphrase?.message.contains("sslpassword") == true, passphrase?.message ?? "")
        XCTAssertFalse(passphrase.map(texts(of:))?.contains { $0.contains("Secr3t") } ?? true)
    }
}

private extension URL {
    var postgresLocation: PersistentContainer.Location { .postgres(self) }
}
