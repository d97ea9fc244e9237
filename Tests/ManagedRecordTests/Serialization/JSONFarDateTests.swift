import Foundation
import ManagedRecord
import XCTest

/// Dates far from now (a year past 9999, before year 0, 1e20 seconds away) are written by
/// the export without stopping the process, as ISO 8601's expanded years, and read back by
/// the import to the same date. A date of 1e20 seconds trapped converting milliseconds to
/// an Int64.
final class JSONFarDateTests: JSONTestCase {
    func testDatesFarFromNowSurviveExportAndImport() throws {
        let seconds: [Double] = [1e20, -1e20, 300_000_000_000, -70_000_000_000.5, 253_402_300_800, 253_402_300_799.75]
        for (index, value) in seconds.enumerated() {
            let specimen = Specimen.newEntity()
            specimen.code = "far-\(index)"
            specimen.stamp = Date(timeIntervalSince1970: value)
        }
        try Specimen.commit()

        let json = try Specimen.exportJSON(sortedBy: [SortKey("code")])
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        let stamps = rows.compactMap { $0["stamp"] as? String }
        XCTAssertEqual(stamps.count, seconds.count, "every date is written as text: \(rows)")
        XCTAssertEqual(stamps[4], "+010000-01-01T00:00:00Z", "a year past 9999 has a sign and six digits or more")
        XCTAssertEqual(stamps[5], "9999-12-31T23:59:59.750Z")
        XCTAssertTrue(stamps[0].hasPrefix("+3168873"), stamps[0])
        XCTAssertTrue(stamps[1].hasPrefix("-3168873"), stamps[1])

        try Specimen.deleteStore()
        try Specimen.importJSON(json, relatedBy: "code")
        let back = try Specimen.fetchAll(sortedBy: [SortKey("code")]).map { $0.stamp.timeIntervalSince1970 }
        XCTAssertEqual(back, seconds)
    }
}

extension JSONFarDateTests {
    /// A number of seconds past any calendar day (1e300) is refused by the import with the
    /// record and key named, instead of being stored and stopping the next export.
    /// Far from 1970 the second of the day was computed in floating point and came out
    /// negative: `-12450378984473-04-01T0-18:0-12:0-16Z`, which the import refused (found by
    /// the JSON oracle, CLIJSONOracleTests seed 1).
    func testTheTimeOfDayOfAFarDateIsAValidTime() throws {
        for seconds in [-3.929e20, 3.929e20, -7.7e20, 7.7e20, -1e19, 1e19, -123456789012345678.0, 7.775e20] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = ISO8601Date.format(date)
            XCTAssertNotNil(text.range(of: #"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{3})?Z$"#, options: .regularExpression), text)
            let parsed = try XCTUnwrap(ISO8601Date.parse(text), text)
            XCTAssertEqual(ISO8601Date.format(parsed), text)
        }
    }

    func testADateBeyondAnyCalendarDayIsRefusedByTheImport() throws {
        let json = Data(#"[{"code": "beyond", "stamp": 1e300}]"#.utf8)
        var options = JSONImportOptions()
        options.dateNumbers = .secondsSince1970
        XCTAssertThrowsError(try Specimen.importJSON(json, relatedBy: "code", options: options)) { error in
            XCTAssertTrue("\(error)".contains("stamp"), "\(error)")
            XCTAssertTrue("\(error)".contains("2.5e13 years"), "\(error)")
        }
        XCTAssertEqual(try Specimen.count(), 0, "nothing was imported")
        XCTAssertNoThrow(try Specimen.exportJSON())
    }
}

extension JSONFarDateTests {
    /// A date past any calendar day that reaches the store another way (set in code, or in a
    /// store another program wrote) is exported as its number of seconds since 1970, exactly,
    /// instead of stopping the process (it stopped on ISO8601Date.format's precondition).
    func testADateBeyondAnyCalendarDayInTheStoreIsExportedAsSeconds() throws {
        let specimen = Specimen.newEntity()
        specimen.code = "beyond"
        specimen.stamp = Date(timeIntervalSince1970: 1e300)
        try Specimen.commit()
        XCTAssertFalse(ISO8601Date.canFormat(specimen.stamp))

        let json = try Specimen.exportJSON()
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        XCTAssertEqual(rows.first?["stamp"] as? Double, 1e300, "\(rows)")
        XCTAssertEqual(specimen.serialize()["stamp"] as? Double, 1e300)
    }
}
