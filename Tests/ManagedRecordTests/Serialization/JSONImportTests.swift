import Foundation
import ManagedRecord
import XCTest

/// Upserts, lenient values, key mapping, batches, policies and the report.
final class JSONImportTests: JSONTestCase {
    func testASecondImportUpdatesInsteadOfDuplicating() throws {
        let first = try Member.importJSON(json(#"[{"badge": "m1", "name": "Ann", "age": 30}, {"badge": "m2", "name": "Bo"}]"#), relatedBy: "badge")
        XCTAssertEqual(first.inserted.count, 2)

        let second = try Member.importJSON(json(#"[{"badge": "m1", "age": 31}, {"badge": "m2", "name": "Bo"}, {"badge": "m3"}]"#), relatedBy: "badge")

        XCTAssertEqual(second.inserted.count, 1)
        XCTAssertEqual(second.updated.count, 1)
        XCTAssertEqual(second.skipped.map(\.index), [1])
        XCTAssertEqual(second.skipped.first?.reason, .unchanged)
        XCTAssertEqual(try Member.count(), 3)
        let ann = try XCTUnwrap(Member.get(where: "badge == %@", "m1"))
        XCTAssertEqual(ann.age, 31)
        XCTAssertEqual(ann.name, "Ann", "a key the record leaves out keeps its value")
        XCTAssertEqual(second.description, "Imported 3 records: 1 inserted, 1 updated, 1 skipped (1 unchanged), 1 transaction")
    }

    func testAnObjectTheCallerHoldsShowsTheImportedValues() throws {
        let ann = Member.newEntity()
        ann.badge = "m1"
        try Member.commit()
        try Member.import(from: [["badge": "m1", "age": 44]], relatedBy: "badge")
        XCTAssertEqual(ann.age, 44)
        XCTAssertFalse(ann.hasChanges)
    }

    func testTheCallersUnsavedChangesAreNeitherCommittedNorLost() throws {
        let draft = Member.newEntity()
        draft.badge = "draft"
        try Member.importJSON(json(#"[{"badge": "m1"}]"#), relatedBy: "badge")
        XCTAssertTrue(draft.isInserted)
        XCTAssertEqual(try Member.count(where: "badge == %@", "m1"), 1)
        Member.rollback()
        XCTAssertEqual(try Member.count(), 1, "the draft was never saved")
    }

    func testAnImportOnAnotherThreadReachesTheMainContext() throws {
        let ann = Member.newEntity()
        ann.badge = "m1"
        try Member.commit()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            do {
                let report = try Member.importJSON(Data(#"[{"badge": "m1", "age": 7}, {"badge": "m2"}]"#.utf8), relatedBy: "badge")
                XCTAssertEqual(report.inserted.count, 1)
            } catch {
                XCTFail("\(error)")
            }
        }
        thread.start()
        done.wait()
        XCTAssertEqual(ann.age, 7)
        XCTAssertEqual(try Member.count(), 2)
    }

    func testDatesInEveryAcceptedForm() throws {
        let expected = Date(timeIntervalSince1970: 1_714_555_800)   // 2024-05-01T09:30:00Z
        let forms: [Any] = [
            "2024-05-01T09:30:00Z", "2024-05-01T11:30:00+02:00", "2024-05-01T04:30:00-0500", "2024-05-01 09:30:00",
            "2024-05-01T09:30Z", "2024-05-01T09:30:00.000Z", 1_714_555_800, 1_714_555_800_000, "1714555800", 1_714_555_800.0, expected,
        ]
        let records: [[String: Any]] = forms.enumerated().map { ["code": "d\($0.offset)", "stamp": $0.element] }
        try Specimen.import(from: records, relatedBy: "code")
        for (index, form) in forms.enumerated() {
            XCTAssertEqual(try Specimen.get(where: "code == %@", "d\(index)")?.stamp, expected, "\(form)")
        }
        try Specimen.import(from: [["code": "day", "stamp": "2024-05-01"], ["code": "fraction", "stamp": "2024-05-01T09:30:00.25Z"]], relatedBy: "code")
        XCTAssertEqual(try Specimen.get(where: "code == %@", "day")?.stamp, Date(timeIntervalSince1970: 1_714_521_600))
        XCTAssertEqual(try Specimen.get(where: "code == %@", "fraction")?.stamp, Date(timeIntervalSince1970: 1_714_555_800.25))

        var options = JSONImportOptions()
        options.dateNumbers = .secondsSinceReferenceDate
        try Specimen.import(from: [["code": "reference", "stamp": 100]], relatedBy: "code", options: options)
        XCTAssertEqual(try Specimen.get(where: "code == %@", "reference")?.stamp, Date(timeIntervalSinceReferenceDate: 100))
    }

    func testNumbersAndBooleansGivenAsStrings() throws {
        try Specimen.importJSON(json(#"""
            [{"code": "s", "flag": "true", "maybe_flag": "no", "count": "42", "small": " -7 ", "medium": "1e3", "large": "9223372036854775807",
              "ratio": "2.5", "score": "0.5", "price": "12.345", "maybe_price": 0.1, "maybe_count": 5.0},
             {"code": "n", "flag": 1, "maybe_flag": 0}]
            """#))
        let s = try XCTUnwrap(Specimen.get(where: "code == %@", "s"))
        XCTAssertEqual(s.flag, true)
        XCTAssertEqual(s.maybeFlag, false)
        XCTAssertEqual(s.count, 42)
        XCTAssertEqual(s.small, -7)
        XCTAssertEqual(s.medium, 1000)
        XCTAssertEqual(s.large, Int64.max)
        XCTAssertEqual(s.ratio, 2.5)
        XCTAssertEqual(s.score, 0.5)
        XCTAssertEqual(s.price, Decimal(string: "12.345"))
        XCTAssertEqual(s.maybePrice, Decimal(string: "0.1"))
        XCTAssertEqual(s.maybeCount, 5)
        let n = try XCTUnwrap(Specimen.get(where: "code == %@", "n"))
        XCTAssertEqual(n.flag, true)
        XCTAssertEqual(n.maybeFlag, false)
    }

    func testSnakeCaseKeysMappedKeysAndSwiftValuesReachTheirAttributes() throws {
        let token = UUID()
        try Specimen.import(from: [["code": "x", "maybe_title": "snake", "maybeCount": 3, "token": token, "payload": Data([1, 2]),
                                    "link": URL(string: "https://a.b")!, "size": ["width": 1, "height": 2, "tags": ["t"]]]])
        let x = try XCTUnwrap(Specimen.get(where: "code == %@", "x"))
        XCTAssertEqual(x.maybeTitle, "snake")
        XCTAssertEqual(x.maybeCount, 3)
        XCTAssertEqual(x.token, token)
        XCTAssertEqual(x.payload, Data([1, 2]))
        XCTAssertEqual(x.link, URL(string: "https://a.b"))
        XCTAssertEqual(x.size, Dimensions(width: 1, height: 2, tags: ["t"]))

        let options = JSONImportOptions(relatedBy: ["Member": "badge"], keys: ["Member": ["name": "full_name", "badge": "id"]])
        try Member.importJSON(json(#"[{"id": "m9", "full_name": "Cy Young"}]"#), options: options)
        XCTAssertEqual(try Member.get(where: "badge == %@", "m9")?.name, "Cy Young")
        let exported = try Member.exportJSON(options: JSONExportOptions(mapping: options.mapping))
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).contains(#""full_name":"Cy Young""#), "export writes the mapped keys")
    }

    func testUnknownKeysAreIgnoredAndCounted() throws {
        let report = try Member.importJSON(json(#"[{"badge": "m1", "nickname": "A"}, {"badge": "m2", "nickname": "B"}]"#), relatedBy: "badge")
        XCTAssertEqual(report.ignoredKeys, ["Member.nickname": 2])
        XCTAssertTrue(report.description.hasSuffix("; ignored keys: Member.nickname"), report.description)
    }

    func testNestedObjectsAndKeyListsSetRelationships() throws {
        try Skill.importJSON(json(#"[{"title": "swift"}, {"title": "sql"}]"#))
        let report = try Member.importJSON(json(#"""
            [{"badge": "m1", "team": {"name": "red", "founded": "2001-09-09"}, "skills": ["swift", "sql"]},
             {"badge": "m2", "team": "red", "mentor": {"entity": "Lead", "badge": "m3", "level": 4}}]
            """#), relatedBy: "badge")
        XCTAssertEqual(report.inserted.count, 4, "two members, the lead and the team: \(report)")
        let red = try XCTUnwrap(Team.get(where: "name == %@", "red"))
        XCTAssertEqual(Set(red.members.map(\.badge)), ["m1", "m2"])
        XCTAssertEqual(try Member.get(where: "badge == %@", "m1")?.skills.map(\.title).sorted(), ["sql", "swift"])
        let lead = try XCTUnwrap(Member.get(where: "badge == %@", "m2")?.mentor)
        XCTAssertEqual(lead.level, 4)
        XCTAssertEqual(lead.mentees.map(\.badge), ["m2"])
    }

    func testObjectsChangedThroughAnInverseAreReportedAsUpdated() throws {
        try Member.importJSON(json(#"[{"badge": "m1"}, {"badge": "m2"}]"#), relatedBy: "badge")
        let report = try Team.importJSON(json(#"[{"name": "red", "members": ["m1", "m2"]}]"#), options: memberOptions)
        XCTAssertEqual(report.inserted.map(\.entity.name), ["Team"])
        XCTAssertEqual(Set(report.updated.map { Member.contextForCurrentThread.object(with: $0).value(forKey: "badge") as? String }), ["m1", "m2"])
    }

    func testAKeyMayNameAnObjectALaterRecordBrings() throws {
        try Member.importJSON(json(#"[{"badge": "m1", "mentor": "m2"}, {"badge": "m2", "entity": "Lead"}]"#), relatedBy: "badge")
        XCTAssertEqual(try Member.get(where: "badge == %@", "m1")?.mentor?.badge, "m2")
    }

    func testInsertOnlyAndUpdateOnlySkipWithTheirReasons() throws {
        try Member.importJSON(json(#"[{"badge": "m1", "age": 1}]"#), relatedBy: "badge")
        var options = JSONImportOptions()
        options.policy = .insertOnly
        let inserting = try Member.importJSON(json(#"[{"badge": "m1", "age": 2}, {"badge": "m2"}]"#), relatedBy: "badge", options: options)
        XCTAssertEqual(inserting.skipped.map(\.description), ["record 0 (m1): exists"])
        options.policy = .updateOnly
        let updating = try Member.importJSON(json(#"[{"badge": "m1", "age": 3}, {"badge": "m3"}]"#), relatedBy: "badge", options: options)
        XCTAssertEqual(updating.skipped.map(\.description), ["record 1 (m3): notFound"])
        XCTAssertEqual(try Member.fetchAll(sortedBy: [SortKey("badge")]).map { "\($0.badge):\($0.age)" }, ["m1:3", "m2:0"])
    }

    func testBatchesCommitEveryNRecordsAndTheReportSaysSo() throws {
        var options = JSONImportOptions(relatedBy: ["Member": "badge"])
        options.batchSize = 3
        let records: [[String: Any]] = (0..<10).map { ["badge": "b\($0)", "age": $0] }
        let report = try Member.import(from: records, options: options)
        XCTAssertEqual(report.committedBatches, 4)
        XCTAssertEqual(report.committedRecords, 10)
        XCTAssertEqual(report.inserted.count, 10)
        XCTAssertFalse(report.inserted.contains(where: \.isTemporaryID))
        XCTAssertEqual(report.description, "Imported 10 records: 10 inserted, 0 updated, 0 skipped, 4 batches of up to 3 records")
        XCTAssertEqual(try Member.count(), 10)

        let again = try Member.import(from: records.map { $0.merging(["age": 1]) { $1 } }, options: options)
        XCTAssertEqual(again.updated.count, 9)
        XCTAssertEqual(again.skipped.map(\.index), [1])
    }

    func testTheExportOfAFetchImportsAsTheSameRecords() throws {
        try Member.import(from: [["badge": "m1", "age": 50], ["badge": "m2", "age": 20]], relatedBy: "badge")
        let json = try Member.exportJSON(where: "age > %@", 40)
        let records = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        XCTAssertEqual(records.map { $0["badge"] as? String }, ["m1"])
        let report = try Member.importJSON(json, relatedBy: "badge")
        XCTAssertEqual(report.skipped.map(\.reason), [.unchanged])
    }
}
