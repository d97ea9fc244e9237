import Foundation
import ManagedRecord
import XCTest

struct Dimensions: Codable, Equatable {
    var width: Double
    var height: Double
    var tags: [String]
}

/// One attribute of every type, and an optional of each.
final class Specimen: ManagedObject {
    @Attribute var code: String = ""
    @Attribute var flag: Bool = false
    @Attribute var count: Int = 0
    @Attribute var small: Int16 = 0
    @Attribute var medium: Int32 = 0
    @Attribute var large: Int64 = 0
    @Attribute var ratio: Double = 0
    @Attribute var score: Float = 0
    @Attribute var price: Decimal = 0
    @Attribute var title: String = ""
    @Attribute var stamp: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var payload: Data = Data()
    @Attribute var token: UUID = UUID()
    @Attribute var link: URL = URL(string: "https://example.com")!
    @Attribute var size: Dimensions = Dimensions(width: 0, height: 0, tags: [])
    @Attribute var maybeFlag: Bool? = nil
    @Attribute var maybeCount: Int? = nil
    @Attribute var maybeSmall: Int16? = nil
    @Attribute var maybeMedium: Int32? = nil
    @Attribute var maybeLarge: Int64? = nil
    @Attribute var maybeRatio: Double? = nil
    @Attribute var maybeScore: Float? = nil
    @Attribute var maybePrice: Decimal? = nil
    @Attribute var maybeTitle: String? = nil
    @Attribute var maybeStamp: Date? = nil
    @Attribute var maybePayload: Data? = nil
    @Attribute var maybeToken: UUID? = nil
    @Attribute var maybeLink: URL? = nil
    @Attribute var maybeSize: Dimensions? = nil
    override class var modelName: String? { "JSONWorld" }
}

/// Every value of a specimen, to compare a store before and after a round trip.
struct SpecimenValues: Equatable {
    let code: String, flag: Bool, count: Int, small: Int16, medium: Int32, large: Int64
    let ratio: Double, score: Float, price: Decimal, title: String, stamp: Date, payload: Data
    let token: UUID, link: URL, size: Dimensions
    let maybeFlag: Bool?, maybeCount: Int?, maybeSmall: Int16?, maybeMedium: Int32?, maybeLarge: Int64?
    let maybeRatio: Double?, maybeScore: Float?, maybePrice: Decimal?, maybeTitle: String?, maybeStamp: Date?
    let maybePayload: Data?, maybeToken: UUID?, maybeLink: URL?, maybeSize: Dimensions?

    init(_ s: Specimen) {
        (code, flag, count, small, medium, large) = (s.code, s.flag, s.count, s.small, s.medium, s.large)
        (ratio, score, price, title, stamp, payload) = (s.ratio, s.score, s.price, s.title, s.stamp, s.payload)
        (token, link, size) = (s.token, s.link, s.size)
        (maybeFlag, maybeCount, maybeSmall, maybeMedium, maybeLarge) = (s.maybeFlag, s.maybeCount, s.maybeSmall, s.maybeMedium, s.maybeLarge)
        (maybeRatio, maybeScore, maybePrice, maybeTitle, maybeStamp) = (s.maybeRatio, s.maybeScore, s.maybePrice, s.maybeTitle, s.maybeStamp)
        (maybePayload, maybeToken, maybeLink, maybeSize) = (s.maybePayload, s.maybeToken, s.maybeLink, s.maybeSize)
    }
}

final class Team: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var founded: Date? = nil
    @Relationship(inverse: \Member.$team, deleteRule: .nullify) var members: Set<Member>
    @Relationship(ordered: true, inverse: \Member.$squad) var lineup: [Member]
    override class var modelName: String? { "JSONWorld" }
}

class Member: ManagedObject {
    @Attribute var badge: String = ""
    @Attribute var name: String = ""
    @Attribute var age: Int = 0
    @Relationship var team: Team?
    @Relationship var squad: Team?
    @Relationship(inverse: \Skill.$holders) var skills: Set<Skill>
    @Relationship var mentor: Lead?
    override class var modelName: String? { "JSONWorld" }

    /// Refuses a negative age at save, for the tests of a failed save.
    override func validateForInsert() throws {
        try super.validateForInsert()
        if age < 0 { throw ValidationError.Problem(self, key: "age", "age cannot be negative") }
    }
}

final class Lead: Member {
    @Attribute var level: Int = 1
    @Relationship(inverse: \Member.$mentor) var mentees: Set<Member>
}

final class Skill: ManagedObject {
    @Attribute var title: String = ""
    @Relationship var holders: Set<Member>
    override class var modelName: String? { "JSONWorld" }
}

extension Team: JSONImportable {
    static var relatedByAttribute: String { "name" }
}

extension Skill: JSONImportable {
    static var relatedByAttribute: String { "title" }
}

/// A fresh store per test, with the "JSONWorld" model set up in it.
class JSONTestCase: XCTestCase {
    var folder: URL!
    var storeURL: URL { folder.appendingPathComponent("JSONWorld.sqlite") }
    let memberOptions = JSONImportOptions(relatedBy: ["Member": "badge"])

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try ManagedRecord.setUp(model: "JSONWorld", entities: [Specimen.self, Team.self, Member.self, Lead.self, Skill.self],
                                storeURL: storeURL)
    }

    override func tearDownWithError() throws {
        ManagedRecord.tearDown(model: "JSONWorld")
        try? FileManager.default.removeItem(at: folder)
    }

    func json(_ text: String) -> Data { Data(text.utf8) }

    /// Every object of the store with its values and relationships (as keys), in a stable
    /// order and form, to prove a failed import changed nothing.
    func storeDump() throws -> String {
        var options = JSONExportOptions(mapping: JSONMapping(relatedBy: ["Member": "badge", "Specimen": "code"]))
        options.prettyPrinted = true
        let parts = try [
            Specimen.exportJSON(sortedBy: [SortKey("code")], options: options),
            Team.exportJSON(sortedBy: [SortKey("name")], options: options),
            Member.exportJSON(sortedBy: [SortKey("badge")], options: options),
            Skill.exportJSON(sortedBy: [SortKey("title")], options: options),
        ]
        // To-many keys come in set order: sort each array of keys.
        return try parts.map { part in
            let records = try XCTUnwrap(JSONSerialization.jsonObject(with: part) as? [[String: Any]])
            let canonical = records.map { $0.mapValues { value in (value as? [String])?.sorted() ?? value } }
            return String(decoding: try JSONSerialization.data(withJSONObject: canonical, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n")
    }
}
