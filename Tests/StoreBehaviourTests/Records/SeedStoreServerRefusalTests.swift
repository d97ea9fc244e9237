import Foundation
import ManagedRecord
import ObjectGraph
import ObjectGraphPostgres
import Testing

/// `ManagedRecord.setUp(seedStore:)` refuses a server store without showing the URL's password
/// (issue 43, docs/security.md#what-is-redacted-where): not in the message, not in the error's
/// `url`, not in `dump`.
@Suite("A seed store refused for a server store")
struct SeedStoreServerRefusalTests {
    @Test("The refusal names the server without its password, wherever the URL put it")
    func refusalHidesThePassword() throws {
        let seed = URL(fileURLWithPath: "/nonexistent/Seed.sqlite")
        for text in ["postgres://app:Secr3tUserInfo@127.0.0.1:1/company", "postgres://app@127.0.0.1:1/company?sslmode=disable&password=Secr3tOption"] {
            let url = try #require(URL(string: text))
            let error = #expect(throws: StoreError.self) {
                try ManagedRecord.setUp(model: SuiteModel.name, entities: SuiteModel.entities, store: .postgres(url), seedStore: seed)
            }
            #expect(error?.code == .cannotOpen)
            var dumped = ""
            dump(error, to: &dumped)
            for shown in [error?.url?.absoluteString ?? "", error?.message ?? "", String(reflecting: error), dumped] {
                #expect(!shown.contains("Secr3t"), "\(shown)")
            }
            #expect(error?.url?.host == "127.0.0.1", "the error still names the server")
        }
    }
}
