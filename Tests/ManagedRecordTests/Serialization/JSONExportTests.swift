import Foundation
import ManagedRecord
import XCTest

/// JSON-ready values, export options, object graphs to a depth, and the Codable form.
final class JSONExportTests: JSONTestCase {
    private func specimen() throws -> Specimen {
        let s = Specimen.newEntity()
        s.code = "s"
        s.stamp = Date(timeIntervalSince1970: 1_714_555_800.5)
        s.payload = Data([0xDE, 0xAD])
        s.token = UUID(uuidString: "8C1F4C2A-9E7D-4F21-A3B8-0D5E6F708192")!
        s.price = Decimal(string: "12.34")!
        s.size = Dimensions(width: 1, height: 2, tags: ["x"])
        try Specimen.commit()
        return s
    }

    func testSerializeGivesJSONReadyValues() throws {
        let fields = try specimen().serialize()
        XCTAssertTrue(JSONSerialization.isValidJSONObject(fields))
        XCTAssertEqual(fields["stamp"] as? String, "2024-05-01T09:30:00.500Z")
        XCTAssertEqual(fields["payload"] as? String, "3q0=")
        XCTAssertEqual(fields["token"] as? String, "8C1F4C2A-9E7D-4F21-A3B8-0D5E6F708192")
        XCTAssertEqual(fields["link"] as? String, "https://example.com")
        XCTAssertEqual(fields["price"] as? Decimal, Decimal(string: "12.34"))
        XCTAssertEqual((fields["size"] as? [String: Any])?["tags"] as? [String], ["x"])
        XCTAssertNil(fields["maybeTitle"], "nil attributes are left out by default")
    }

    func testDatesAndDecimalsAreWrittenAsTheOptionsSay() throws {
        let s = try specimen()
        var options = JSONExportOptions(dates: .secondsSince1970, decimals: .string)
        XCTAssertEqual(s.serialize(options: options)["stamp"] as? Double, 1_714_555_800.5)
        XCTAssertEqual(s.serialize(options: options)["price"] as? String, "12.34")
        options.dates = .millisecondsSince1970
        XCTAssertEqual(s.serialize(options: options)["stamp"] as? Double, 1_714_555_800_500)
        XCTAssertTrue(s.serialize(options: options)["maybeTitle"] is NSNull, "includesNullValues writes null")
    }

    func testValuesReadBackFromTheStoreAreWrittenByTheirAttributeType() throws {
        // SQLite's NUMERIC affinity hands back whole dates and decimals as integers.
        let s = Specimen.newEntity()
        s.code = "whole"
        s.stamp = Date(timeIntervalSinceReferenceDate: 86_400)
        s.price = 12
        s.ratio = 3
        try Specimen.commit()
        Specimen.contextForCurrentThread.reset()

        let fields = try XCTUnwrap(Specimen.get(where: "code == %@", "whole")).serialize(options: JSONExportOptions(decimals: .string))
        XCTAssertEqual(fields["stamp"] as? String, "2001-01-02T00:00:00Z")
        XCTAssertEqual(fields["price"] as? String, "12")
        XCTAssertEqual(fields["ratio"] as? Double, 3)
    }

    func testANumberJSONCannotHoldIsAnExportError() throws {
        let s = Specimen.newEntity()
        s.ratio = .infinity         // stored exactly (a NaN is refused at save: UnstorableValueTests)
        try Specimen.commit()
        XCTAssertThrowsError(try Specimen.exportJSON()) { error in
            XCTAssertTrue("\(error)".contains("inf is not a JSON number"), "\(error)")
        }
    }

    private func makeTeam() throws {
        let red = Team.newEntity()
        red.name = "red"
        let ann = Member.newEntity(), lead = Lead.newEntity()
        ann.badge = "m1"; lead.badge = "m2"
        ann.mentor = lead
        red.lineup = [lead, ann]
        try Team.commit()
    }

    func testAGraphIsNestedToTheChosenDepthThenWrittenAsKeys() throws {
        try makeTeam()
        let mapping = JSONMapping(relatedBy: ["Member": "badge"])
        let keys = try XCTUnwrap(JSONSerialization.jsonObject(with: Team.exportJSON(options: JSONExportOptions(mapping: mapping))) as? [[String: Any]])
        XCTAssertEqual(keys.first?["lineup"] as? [String], ["m2", "m1"])

        let nested = try XCTUnwrap(JSONSerialization.jsonObject(with: Team.exportJSON(options: JSONExportOptions(mapping: mapping, relationships: .nested(depth: 1)))) as? [[String: Any]])
        let lineup = try XCTUnwrap(nested.first?["lineup"] as? [[String: Any]])
        XCTAssertEqual(lineup.map { $0["badge"] as? String }, ["m2", "m1"])
        XCTAssertEqual(lineup[0]["entity"] as? String, "Lead", "a sub-entity says which")
        XCTAssertNil(lineup[0]["squad"], "the inverse of the nesting relationship is left out")
        XCTAssertEqual(lineup[1]["mentor"] as? String, "m2", "past the depth, relationships are keys")

        let context = Team.contextForCurrentThread
        let red = try XCTUnwrap(Team.get(where: "name == %@", "red"))
        let graph = try XCTUnwrap(JSONSerialization.jsonObject(with: context.exportJSON([red], options: JSONExportOptions(mapping: mapping, relationships: .nested(depth: 2)))) as? [[String: Any]])
        let mentor = try XCTUnwrap((graph.first?["lineup"] as? [[String: Any]])?[1]["mentor"] as? [String: Any])
        XCTAssertEqual(mentor["badge"] as? String, "m2")
    }

    func testAFetchExportsAsCodableRows() throws {
        struct Row: Decodable, Equatable {
            let code: String
            let stamp: Date
            let token: UUID
            let price: Decimal
            let size: Dimensions
            let maybeTitle: String?
        }
        _ = try specimen()
        let rows = try Specimen.export(as: Row.self)
        XCTAssertEqual(rows, [Row(code: "s", stamp: Date(timeIntervalSince1970: 1_714_555_800.5), token: UUID(uuidString: "8C1F4C2A-9E7D-4F21-A3B8-0D5E6F708192")!,
                                  price: Decimal(string: "12.34")!, size: Dimensions(width: 1, height: 2, tags: ["x"]), maybeTitle: nil)])
        let epoch = try Specimen.export(as: Row.self, options: JSONExportOptions(dates: .millisecondsSince1970))
        XCTAssertEqual(epoch, rows)
    }
}
