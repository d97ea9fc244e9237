import Foundation
import ManagedRecord
import XCTest

/// Every kind of bad input: a typed error naming the record and key, and the store and the
/// calling context exactly as they were.
final class JSONImportErrorTests: JSONTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        let red = Team.newEntity()
        red.name = "red"
        let ann = Member.newEntity()
        ann.badge = "m1"
        ann.name = "Ann"
        ann.team = red
        let swift = Skill.newEntity()
        swift.title = "swift"
        try Team.commit()
    }

    /// Runs `body`, which must throw a `JSONImportError` of `code` at `index` and `key`,
    /// while this thread's context holds an unsaved insert and an unsaved change; then
    /// checks the store and the context are as before.
    private func assertFails(_ code: JSONImportError.Code, index: Int?, key: String?, _ body: () throws -> Void,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let dump = try storeDump()
        let pending = Member.newEntity()
        pending.badge = "pending"
        let ann = try XCTUnwrap(Member.get(where: "badge == %@", "m1"))
        ann.age = 99
        let context = Member.contextForCurrentThread
        let inserted = context.insertedObjects, updated = context.updatedObjects

        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? JSONImportError else { return XCTFail("not a JSONImportError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            XCTAssertEqual(error.index, index, "\(error)", file: file, line: line)
            XCTAssertEqual(error.key, key, "\(error)", file: file, line: line)
            XCTAssertTrue(error.description.contains("Nothing was imported"), error.description, file: file, line: line)
        }

        XCTAssertEqual(context.insertedObjects, inserted, file: file, line: line)
        XCTAssertEqual(context.updatedObjects, updated, file: file, line: line)
        XCTAssertEqual(ann.age, 99, file: file, line: line)
        context.rollback()
        XCTAssertEqual(try storeDump(), dump, "the store changed", file: file, line: line)
    }

    func testDataThatIsNotJSONIsMalformed() throws {
        try assertFails(.malformedJSON, index: nil, key: nil) { try Member.importJSON(json("[{\"badge\": "), options: memberOptions) }
        try assertFails(.malformedJSON, index: nil, key: nil) { try Member.importJSON(json("42"), options: memberOptions) }
    }

    func testARecordThatIsNotAnObjectIsNamedByIndex() throws {
        try assertFails(.notAnObject, index: 1, key: nil) {
            try Member.importJSON(json(#"[{"badge": "m2"}, "m3"]"#), options: memberOptions)
        }
    }

    func testAnUnknownEntityOrSubEntityIsRefused() throws {
        try assertFails(.unknownEntity, index: nil, key: nil) {
            try Member.contextForCurrentThread.importJSON(json("[]"), entityName: "Player")
        }
        try assertFails(.unknownEntity, index: 1, key: "entity") {
            try Member.importJSON(json(#"[{"badge": "m2"}, {"badge": "m3", "entity": "Team"}]"#), options: memberOptions)
        }
    }

    func testAnUnknownKeyIsAnErrorOnlyWhenStrict() throws {
        var options = memberOptions
        options.strict = true
        try assertFails(.unknownKey, index: 0, key: "nickname") {
            try Member.importJSON(json(#"[{"badge": "m2", "nickname": "Bo"}]"#), options: options)
        }
        try assertFails(.unknownKey, index: 0, key: "team.colour") {
            try Member.importJSON(json(#"[{"badge": "m2", "team": {"name": "blue", "colour": 3}}]"#), options: options)
        }
    }

    func testAValueOfTheWrongTypeNamesTheRecordAndTheKey() throws {
        try assertFails(.wrongType, index: 1, key: "age") {
            try Member.importJSON(json(#"[{"badge": "m2", "age": 3}, {"badge": "m3", "age": "forty"}]"#), options: memberOptions)
        }
        try assertFails(.wrongType, index: 0, key: "small") { try Specimen.importJSON(json(#"[{"code": "a", "small": 40000}]"#)) }
        try assertFails(.wrongType, index: 0, key: "flag") { try Specimen.importJSON(json(#"[{"code": "a", "flag": "maybe"}]"#)) }
        try assertFails(.wrongType, index: 0, key: "stamp") { try Specimen.importJSON(json(#"[{"code": "a", "stamp": "yesterday"}]"#)) }
        try assertFails(.wrongType, index: 0, key: "stamp") { try Specimen.importJSON(json(#"[{"code": "a", "stamp": "2023-02-30"}]"#)) }
        try assertFails(.wrongType, index: 0, key: "token") { try Specimen.importJSON(json(#"[{"code": "a", "token": "not-a-uuid"}]"#)) }
        try assertFails(.wrongType, index: 0, key: "payload") { try Specimen.importJSON(json(#"[{"code": "a", "payload": 12}]"#)) }
        try assertFails(.wrongType, index: 0, key: "size") { try Specimen.importJSON(json(#"[{"code": "a", "size": {"width": "wide"}}]"#)) }
        // A number for a String is its exact text (MagicalRecordModelImportTests); a boolean is refused.
        try assertFails(.wrongType, index: 0, key: "title") { try Specimen.importJSON(json(#"[{"code": "a", "title": true}]"#)) }
        try assertFails(.wrongType, index: 0, key: "team") {
            try Member.importJSON(json(#"[{"badge": "m2", "team": ["red"]}]"#), options: memberOptions)
        }
        try assertFails(.wrongType, index: 0, key: "skills") {
            try Member.importJSON(json(#"[{"badge": "m2", "skills": "swift"}]"#), options: memberOptions)
        }
        try assertFails(.wrongType, index: 0, key: "mentor") {   // a Member where a Lead belongs
            try Member.importJSON(json(#"[{"badge": "m2", "mentor": "m1"}]"#), options: memberOptions)
        }
    }

    func testNullForANonOptionalAttributeIsAMissingRequiredValue() throws {
        try assertFails(.missingRequiredValue, index: 0, key: "members[1].name") {
            try Team.importJSON(json(#"[{"name": "blue", "members": [{"badge": "m2"}, {"badge": "m3", "name": null}]}]"#), options: memberOptions)
        }
    }

    func testAKeyThatNamesNoObjectIsAnUnknownReference() throws {
        try assertFails(.unknownReference, index: 0, key: "team") {
            try Member.importJSON(json(#"[{"badge": "m2", "team": "green"}]"#), options: memberOptions)
        }
        try assertFails(.unknownReference, index: 0, key: "skills[1]") {
            try Member.importJSON(json(#"[{"badge": "m2", "skills": ["swift", "cobol"]}]"#), options: memberOptions)
        }
        try assertFails(.unknownReference, index: 0, key: "mentor") {   // no related-by attribute for Member
            try Member.importJSON(json(#"[{"badge": "m2", "mentor": "m1"}]"#))
        }
        try assertFails(.unknownReference, index: 0, key: "team") {
            try Member.importJSON(json(#"[{"badge": "m2", "team": "x-coredata://nowhere/Team/p1"}]"#), options: memberOptions)
        }
    }

    func testAFailedSaveIsReportedAndRolledBack() throws {
        try assertFails(.saveFailed, index: nil, key: nil) {
            try Member.importJSON(json(#"[{"badge": "m2"}, {"badge": "m3", "age": -1}]"#), options: memberOptions)
        }
    }

    func testAStoreLookupThatFailsIsReportedAndRolledBack() throws {
        // A Codable attribute cannot be compared by the store, so it cannot match records.
        try assertFails(.storeFailed, index: nil, key: nil) {
            try Specimen.importJSON(json(#"[{"code": "a", "size": {"width": 1, "height": 2, "tags": []}}]"#), relatedBy: "size")
        }
    }

    func testAFailureInALaterBatchKeepsTheCommittedBatchesAndSaysWhich() throws {
        var options = memberOptions
        options.batchSize = 2
        let records = (0..<5).map { i in i == 4 ? #"{"badge": "b4", "age": "old"}"# : #"{"badge": "b\#(i)"}"# }
        XCTAssertThrowsError(try Member.importJSON(json("[\(records.joined(separator: ","))]"), options: options)) { error in
            guard let error = error as? JSONImportError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .wrongType)
            XCTAssertEqual(error.index, 4)
            XCTAssertEqual(error.report.committedBatches, 2)
            XCTAssertEqual(error.report.committedRecords, 4)
            XCTAssertEqual(error.report.inserted.count, 4)
            XCTAssertTrue(error.description.contains("2 earlier batches (4 records) were committed"), error.description)
        }
        XCTAssertEqual(try Member.count(where: "badge BEGINSWITH %@", "b"), 4)
    }
}
