import Foundation
import ManagedRecord
import XCTest

/// Export, import into an empty store, compare: for every attribute type and every kind of
/// relationship.
final class JSONRoundTripTests: JSONTestCase {
    private func makeSpecimens() throws {
        let full = Specimen.newEntity()
        full.code = "full"
        full.flag = true
        full.count = -9_000_000_000
        full.small = -32_768
        full.medium = 2_147_483_647
        full.large = Int64.max
        full.ratio = 0.1
        full.score = 0.1
        full.price = Decimal(string: "12345.67")!
        full.title = "Ünïcødé \"quoted\" / slash"
        full.stamp = Date(timeIntervalSince1970: 1_700_000_000.25)
        full.payload = Data([0, 1, 2, 255])
        full.token = UUID(uuidString: "8C1F4C2A-9E7D-4F21-A3B8-0D5E6F708192")!
        full.link = URL(string: "https://example.com/path?q=1")!
        full.size = Dimensions(width: 1.5, height: 2, tags: ["a", "b"])
        full.maybeFlag = false
        full.maybeCount = 7
        full.maybeSmall = 8
        full.maybeMedium = 9
        full.maybeLarge = 10
        full.maybeRatio = 2.5
        full.maybeScore = 3.25
        full.maybePrice = Decimal(string: "0.01")!
        full.maybeTitle = ""
        full.maybeStamp = Date(timeIntervalSince1970: -86_400.5)
        full.maybePayload = Data()
        full.maybeToken = UUID()
        full.maybeLink = URL(string: "file:///tmp/x")!
        full.maybeSize = Dimensions(width: 0, height: -1, tags: [])
        let empty = Specimen.newEntity()
        empty.code = "empty"
        try Specimen.commit()
    }

    func testEveryAttributeTypeAndOptionalSurvivesExportAndImportIntoAnEmptyStore() throws {
        try makeSpecimens()
        let before = try Specimen.fetchAll(sortedBy: [SortKey("code")]).map(SpecimenValues.init)
        let json = try Specimen.exportJSON()
        try Specimen.deleteStore()
        XCTAssertEqual(try Specimen.count(), 0)

        let report = try Specimen.importJSON(json, relatedBy: "code")

        XCTAssertEqual(report.inserted.count, 2)
        XCTAssertEqual(try Specimen.fetchAll(sortedBy: [SortKey("code")]).map(SpecimenValues.init), before)
    }

    func testEveryAttributeTypeSurvivesWithEpochDatesAndDecimalsAsStrings() throws {
        try makeSpecimens()
        let before = try Specimen.fetchAll(sortedBy: [SortKey("code")]).map(SpecimenValues.init)
        var options = JSONExportOptions(dates: .millisecondsSince1970, decimals: .string)
        options.includesNullValues = false
        let json = try Specimen.exportJSON(options: options)
        try Specimen.deleteStore()

        // Milliseconds near 1970 (-86,400,500) look like seconds to `.automatic`: say the unit.
        var importOptions = JSONImportOptions()
        importOptions.dateNumbers = .millisecondsSince1970
        try Specimen.importJSON(json, relatedBy: "code", options: importOptions)

        XCTAssertEqual(try Specimen.fetchAll(sortedBy: [SortKey("code")]).map(SpecimenValues.init), before)
    }

    /// Red and blue teams; m4 is a Lead who mentors m1 and m2; red's lineup is ordered.
    private func makeTeams() throws {
        let red = Team.newEntity(), blue = Team.newEntity()
        red.name = "red"; blue.name = "blue"
        red.founded = Date(timeIntervalSince1970: 1_000_000_000)
        let members: [Member] = [Member.newEntity(), Member.newEntity(), Member.newEntity(), Lead.newEntity()]
        for (i, member) in members.enumerated() {
            member.badge = "m\(i + 1)"
            member.name = "Member \(i + 1)"
            member.age = 20 + i
        }
        let lead = members[3] as! Lead
        lead.level = 3
        red.members = [members[0], members[1]]
        blue.members = [members[2], members[3]]
        red.lineup = [members[1], members[0], members[3]]
        blue.lineup = [members[2]]
        let swift = Skill.newEntity(), sql = Skill.newEntity()
        swift.title = "swift"; sql.title = "sql"
        swift.holders = [members[0], members[2]]
        sql.holders = [members[0], members[1], members[3]]
        members[0].mentor = lead
        members[1].mentor = lead
        try Team.commit()
    }

    /// Every relationship of the graph, by keys, sorted where unordered.
    private func graph() throws -> [String] {
        var lines: [String] = []
        for team in try Team.fetchAll(sortedBy: [SortKey("name")]) {
            lines.append("\(team.name) founded=\(String(describing: team.founded)) members=\(team.members.map(\.badge).sorted()) lineup=\(team.lineup.map(\.badge))")
        }
        for member in try Member.fetchAll(sortedBy: [SortKey("badge")]) {
            let level = (member as? Lead).map { " lead level=\($0.level) mentees=\($0.mentees.map(\.badge).sorted())" } ?? ""
            lines.append("\(member.badge) \(member.name) \(member.age) team=\(member.team?.name ?? "-") squad=\(member.squad?.name ?? "-") skills=\(member.skills.map(\.title).sorted()) mentor=\(member.mentor?.badge ?? "-")\(level)")
        }
        for skill in try Skill.fetchAll(sortedBy: [SortKey("title")]) {
            lines.append("\(skill.title) holders=\(skill.holders.map(\.badge).sorted())")
        }
        return lines
    }

    func testToOneToManyOrderedAndManyToManyRelationshipsSurviveAsKeys() throws {
        try makeTeams()
        let before = try graph()
        let mapping = JSONMapping(relatedBy: ["Member": "badge"])
        let skills = try Skill.exportJSON(options: JSONExportOptions(mapping: mapping, relationships: .omitted))
        let teamAttributes = try Team.exportJSON(options: JSONExportOptions(mapping: mapping, relationships: .omitted))
        let teams = try Team.exportJSON(options: JSONExportOptions(mapping: mapping))
        let members = try Member.exportJSON(options: JSONExportOptions(mapping: mapping))
        try Team.deleteStore()

        // Skills and teams first (without relationships), then members naming them by key,
        // then the teams again for their ordered lineups: a second import updates.
        try Skill.importJSON(skills)
        try Team.importJSON(teamAttributes)
        let memberReport = try Member.importJSON(members, options: memberOptions)
        let teamReport = try Team.importJSON(teams, options: memberOptions)

        XCTAssertEqual(memberReport.inserted.count, 4)
        XCTAssertEqual(teamReport.inserted.count, 0)
        XCTAssertEqual(try graph(), before)
    }

    func testAGraphNestedTwoLevelsDeepImportsInOneStep() throws {
        try makeTeams()
        let before = try graph()
        let mapping = JSONMapping(relatedBy: ["Member": "badge"])
        let json = try Team.exportJSON(options: JSONExportOptions(mapping: mapping, relationships: .nested(depth: 2)))
        try Team.deleteStore()

        let report = try Team.importJSON(json, options: JSONImportOptions(relatedBy: ["Member": "badge"]))

        XCTAssertEqual(report.inserted.count, 2 + 4 + 2, "teams, members and skills, each once: \(report)")
        XCTAssertEqual(try graph(), before)
    }

    /// Members have no related-by attribute: by default they are nested in their teams (and
    /// a mentor in the members it mentors), each with its identity, so one export of the
    /// teams imports into an empty store in one step with the same members, once each.
    func testByDefaultObjectsWithoutARelatedByAttributeAreNestedWithTheirIdentityAndImportOnce() throws {
        try makeTeams()
        let red = try XCTUnwrap(Team.get(where: "name == %@", "red"))
        red.founded = Date(timeIntervalSince1970: 1_000_000_000.125)
        try Team.commit()
        let before = try graph()
        let skills = try Skill.exportJSON(options: JSONExportOptions(relationships: .omitted))
        let teams = try Team.exportJSON()
        XCTAssertFalse(String(decoding: teams, as: UTF8.self).contains("x-coredata:"))
        let records = try XCTUnwrap(JSONSerialization.jsonObject(with: teams) as? [[String: Any]])
        let member = try XCTUnwrap((records.first { $0["name"] as? String == "red" }?["members"] as? [[String: Any]])?.first)
        XCTAssertEqual(member["badge"] as? String, "m1", "nested: a person reads it")
        XCTAssertEqual(member["@id"] as? String, "Member/p1")
        XCTAssertNil(member["team"], "the inverse of the relationship it is nested through is left out")
        try Team.deleteStore()

        try Skill.importJSON(skills)
        let report = try Team.importJSON(teams)

        XCTAssertEqual(report.inserted.count, 2 + 4, "teams and members, each once: \(report)")
        XCTAssertEqual(try graph(), before)
        XCTAssertEqual(try Team.get(where: "name == %@", "red")?.founded, Date(timeIntervalSince1970: 1_000_000_000.125))
    }

    /// A lead who mentors themself: a cycle, written as the identity of the object already
    /// written, and read back as that object.
    func testACycleIsWrittenAsTheIdentityOfTheObjectAlreadyWritten() throws {
        try makeTeams()
        let lead = try XCTUnwrap(Lead.get(where: "badge == %@", "m4"))
        lead.mentor = lead
        try Lead.commit()
        let before = try graph()
        let json = try Member.exportJSON(where: "badge == %@", "m4")
        let record = try XCTUnwrap((JSONSerialization.jsonObject(with: json) as? [[String: Any]])?.first)
        XCTAssertEqual(record["mentor"] as? [String: String], ["@id": "Lead/p4"], "the lead already written")
        XCTAssertEqual(record["@id"] as? String, "Lead/p4")
        let skills = try Skill.exportJSON(options: JSONExportOptions(relationships: .omitted))
        let teams = try Team.exportJSON()
        try Team.deleteStore()

        try Skill.importJSON(skills)
        try Team.importJSON(teams)
        XCTAssertEqual(try graph(), before)
        XCTAssertEqual(try Member.count(), 4)
    }

    /// Records with the same identity are one object, in one batch or across batches.
    func testRecordsWithTheSameIdentityAreOneObjectAcrossBatches() throws {
        let json = json(#"""
        [{"badge": "a", "name": "A", "mentor": {"@id": "L", "entity": "Lead", "badge": "l", "name": "Lead"}},
         {"badge": "b", "name": "B", "mentor": {"@id": "L"}},
         {"badge": "c", "name": "C", "mentor": {"@id": "L", "name": "Lead, renamed"}}]
        """#)
        var options = JSONImportOptions()
        options.batchSize = 1
        let report = try Member.importJSON(json, options: options)
        XCTAssertEqual(report.inserted.count, 4)
        XCTAssertEqual(try Lead.count(), 1)
        XCTAssertEqual(try Lead.fetchAll().first?.mentees.map(\.badge).sorted(), ["a", "b", "c"])
        XCTAssertEqual(try Lead.fetchAll().first?.name, "Lead, renamed")

        // An identity that names an object of another entity is an error.
        XCTAssertThrowsError(try Member.importJSON(self.json(#"[{"@id": "X", "badge": "x", "name": "X"}, {"badge": "y", "name": "Y", "mentor": {"@id": "X"}}]"#))) { error in
            XCTAssertEqual((error as? JSONImportError)?.code, .wrongType, "\(error)")
        }
    }

    /// Object ID URIs only when asked (`.objectIDs`): they name objects of this store only.
    func testObjectsWithoutARelatedByAttributeAreWrittenAsObjectIDURIsWhenAskedAndReadBack() throws {
        try makeTeams()
        let json = try Member.exportJSON(where: "badge == %@", "m1", options: JSONExportOptions(relationships: .objectIDs))
        let record = try XCTUnwrap((JSONSerialization.jsonObject(with: json) as? [[String: Any]])?.first)
        let mentor = try XCTUnwrap(record["mentor"] as? String)
        XCTAssertTrue(mentor.hasPrefix("x-coredata://"), mentor)
        XCTAssertEqual(record["team"] as? String, "red")
        XCTAssertNil(record["@id"])

        // Re-imported into the same store, the URI finds the same lead.
        let lead = try XCTUnwrap(Lead.get(where: "badge == %@", "m4"))
        lead.mentees = []
        try Lead.commit()
        try Member.importJSON(json, options: memberOptions)
        XCTAssertEqual(try Member.get(where: "badge == %@", "m1")?.mentor?.badge, "m4")
    }
}
