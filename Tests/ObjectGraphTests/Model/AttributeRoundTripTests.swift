import Foundation
import ObjectGraph
import XCTest

final class AttributeRoundTripTests: StoreTestCase {
    private let extremeText = "Grüße, 世界! Ελληνικά — עברית — emoji 👩‍👩‍👧‍👦🏳️‍🌈, combining e\u{301}, ℤ"
    private let blob = Data([0x00, 0xFF, 0x10, 0x00, 0x7F, 0x80])
    private let identifier = UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115")!

    /// Sets the maximum-ish values on `specimen`.
    private func fillWithExtremes(_ specimen: Specimen) {
        specimen.flag = true
        specimen.integer = Int.max
        specimen.small = Int16.min
        specimen.medium = Int32.max
        specimen.large = Int64.min
        specimen.real = -Double.greatestFiniteMagnitude
        specimen.single = Float.greatestFiniteMagnitude
        specimen.amount = Decimal(string: "12345.678")!
        specimen.text = extremeText
        specimen.moment = Date.distantPast
        specimen.bytes = blob
        specimen.identifier = identifier
        specimen.link = URL(string: "https://example.com/a%20path?q=%C3%BC&x=1#frag")!
        specimen.dimensions = Dimensions(width: 1.5, height: -2, labels: ["a", "ü", ""])

        specimen.optionalFlag = false
        specimen.optionalInteger = Int.min
        specimen.optionalSmall = Int16.max
        specimen.optionalMedium = Int32.min
        specimen.optionalLarge = Int64.max
        specimen.optionalReal = Double.leastNonzeroMagnitude
        specimen.optionalSingle = -Float.leastNormalMagnitude
        specimen.optionalAmount = Decimal(string: "-0.001")!
        specimen.optionalText = ""
        specimen.optionalMoment = Date.distantFuture
        specimen.optionalBytes = Data()
        specimen.optionalIdentifier = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        specimen.optionalLink = URL(fileURLWithPath: "/tmp/ü space/file.txt")
        specimen.optionalDimensions = Dimensions(width: 3, height: 4, labels: [extremeText])
    }

    private func assertExtremes(_ specimen: Specimen, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(specimen.flag, true, file: file, line: line)
        XCTAssertEqual(specimen.integer, Int.max, file: file, line: line)
        XCTAssertEqual(specimen.small, Int16.min, file: file, line: line)
        XCTAssertEqual(specimen.medium, Int32.max, file: file, line: line)
        XCTAssertEqual(specimen.large, Int64.min, file: file, line: line)
        XCTAssertEqual(specimen.real, -Double.greatestFiniteMagnitude, file: file, line: line)
        XCTAssertEqual(specimen.single, Float.greatestFiniteMagnitude, file: file, line: line)
        XCTAssertEqual(specimen.amount, Decimal(string: "12345.678")!, file: file, line: line)
        XCTAssertEqual(specimen.text, extremeText, file: file, line: line)
        XCTAssertEqual(specimen.moment, Date.distantPast, file: file, line: line)
        XCTAssertEqual(specimen.bytes, blob, file: file, line: line)
        XCTAssertEqual(specimen.identifier, identifier, file: file, line: line)
        XCTAssertEqual(specimen.link.absoluteString, "https://example.com/a%20path?q=%C3%BC&x=1#frag", file: file, line: line)
        XCTAssertEqual(specimen.dimensions, Dimensions(width: 1.5, height: -2, labels: ["a", "ü", ""]), file: file, line: line)

        XCTAssertEqual(specimen.optionalFlag, false, file: file, line: line)
        XCTAssertEqual(specimen.optionalInteger, Int.min, file: file, line: line)
        XCTAssertEqual(specimen.optionalSmall, Int16.max, file: file, line: line)
        XCTAssertEqual(specimen.optionalMedium, Int32.min, file: file, line: line)
        XCTAssertEqual(specimen.optionalLarge, Int64.max, file: file, line: line)
        XCTAssertEqual(specimen.optionalReal, Double.leastNonzeroMagnitude, file: file, line: line)
        XCTAssertEqual(specimen.optionalSingle, -Float.leastNormalMagnitude, file: file, line: line)
        XCTAssertEqual(specimen.optionalAmount, Decimal(string: "-0.001")!, file: file, line: line)
        XCTAssertEqual(specimen.optionalText, "", file: file, line: line)
        XCTAssertEqual(specimen.optionalMoment, Date.distantFuture, file: file, line: line)
        XCTAssertEqual(specimen.optionalBytes, Data(), file: file, line: line)
        XCTAssertEqual(specimen.optionalIdentifier, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, file: file, line: line)
        XCTAssertEqual(specimen.optionalLink, URL(fileURLWithPath: "/tmp/ü space/file.txt"), file: file, line: line)
        XCTAssertEqual(specimen.optionalDimensions, Dimensions(width: 3, height: 4, labels: [extremeText]), file: file, line: line)
    }

    func testSavingAndReopeningKeepsEveryAttributeTypeAtItsExtremes() throws {
        do {
            let container = try makeContainer(Models.specimen)
            let specimen = Specimen(context: container.viewContext)
            fillWithExtremes(specimen)
            try container.viewContext.save()
            assertExtremes(specimen)
        }
        let reopened = try makeContainer(Models.specimen)
        let specimens = try fetchAll(Specimen.self, in: reopened.viewContext)
        XCTAssertEqual(specimens.count, 1)
        let specimen = try XCTUnwrap(specimens.first)
        assertExtremes(specimen)
        XCTAssertFalse(specimen.hasChanges)
    }

    func testSavingAndReopeningKeepsNilInEveryOptionalAttribute() throws {
        do {
            let container = try makeContainer(Models.specimen)
            let specimen = Specimen(context: container.viewContext)
            fillWithExtremes(specimen)
            try container.viewContext.save()
            // Back to nil after a save: an update that writes NULLs.
            specimen.optionalFlag = nil
            specimen.optionalInteger = nil
            specimen.optionalSmall = nil
            specimen.optionalMedium = nil
            specimen.optionalLarge = nil
            specimen.optionalReal = nil
            specimen.optionalSingle = nil
            specimen.optionalAmount = nil
            specimen.optionalText = nil
            specimen.optionalMoment = nil
            specimen.optionalBytes = nil
            specimen.optionalIdentifier = nil
            specimen.optionalLink = nil
            specimen.optionalDimensions = nil
            try container.viewContext.save()
        }
        let reopened = try makeContainer(Models.specimen)
        let specimen = try XCTUnwrap(fetchAll(Specimen.self, in: reopened.viewContext).first)
        XCTAssertNil(specimen.optionalFlag)
        XCTAssertNil(specimen.optionalInteger)
        XCTAssertNil(specimen.optionalSmall)
        XCTAssertNil(specimen.optionalMedium)
        XCTAssertNil(specimen.optionalLarge)
        XCTAssertNil(specimen.optionalReal)
        XCTAssertNil(specimen.optionalSingle)
        XCTAssertNil(specimen.optionalAmount)
        XCTAssertNil(specimen.optionalText)
        XCTAssertNil(specimen.optionalMoment)
        XCTAssertNil(specimen.optionalBytes)
        XCTAssertNil(specimen.optionalIdentifier)
        XCTAssertNil(specimen.optionalLink)
        XCTAssertNil(specimen.optionalDimensions)
        // The non-optional ones kept their values.
        XCTAssertEqual(specimen.text, extremeText)

        let nulls = try SQLiteFile(storeURL).rows("SELECT ZOPTIONALTEXT, ZOPTIONALMOMENT, ZOPTIONALIDENTIFIER, ZOPTIONALDIMENSIONS FROM ZSPECIMEN")
        XCTAssertEqual(nulls, [[.null, .null, .null, .null]], "nil is stored as SQL NULL")
    }

    /// Zero, 0.0 and "" are values, not NULL: rows are read without asking SQLite for each
    /// column's type unless the value could be NULL (0 or a null text pointer).
    func testZeroAndEmptyOptionalsStayDistinctFromNil() throws {
        do {
            let container = try makeContainer(Models.specimen)
            let specimen = Specimen(context: container.viewContext)
            specimen.optionalInteger = 0
            specimen.optionalReal = 0
            specimen.optionalText = ""
            try container.viewContext.save()
        }
        let reopened = try makeContainer(Models.specimen)
        let specimen = try XCTUnwrap(fetchAll(Specimen.self, in: reopened.viewContext).first)
        XCTAssertEqual(specimen.optionalInteger, 0)
        XCTAssertEqual(specimen.optionalReal, 0)
        XCTAssertEqual(specimen.optionalText, "")
        XCTAssertNil(specimen.optionalSmall, "an attribute never set is still nil")
    }

    func testNewObjectsGetTheirDeclaredDefaultsAndEachItsOwnUUID() throws {
        let container = try makeContainer(Models.company)
        let a = Employee(context: container.viewContext)
        let b = Employee(context: container.viewContext)
        XCTAssertEqual(a.firstName, "")
        XCTAssertEqual(a.age, 0)
        XCTAssertNil(a.hired)
        XCTAssertNotEqual(a.badge, b.badge, "a default value is evaluated for each new object")
        try container.viewContext.save()
        let reopened = try makeContainer(Models.company)
        let badges = Set(try fetchAll(Employee.self, in: reopened.viewContext).map(\.badge))
        XCTAssertEqual(badges, [a.badge, b.badge])
    }

    func testDistantDatesAndSubMillisecondPrecisionSurviveReopen() throws {
        let dates = [
            Date(timeIntervalSince1970: -62_135_596_800),      // 0001-01-01
            Date(timeIntervalSinceReferenceDate: 0),
            Date(timeIntervalSinceReferenceDate: 639_503_569.638733),
            Date(timeIntervalSince1970: 253_402_300_799),      // 9999-12-31 23:59:59
            Date.distantFuture,
        ]
        do {
            let container = try makeContainer(Models.specimen)
            for date in dates {
                Specimen(context: container.viewContext).moment = date
            }
            try container.viewContext.save()
        }
        let stored = try SQLiteFile(storeURL).rows("SELECT ZMOMENT FROM ZSPECIMEN ORDER BY ZMOMENT").compactMap { $0[0].double }
        XCTAssertEqual(stored, dates.map(\.timeIntervalSinceReferenceDate).sorted(), "dates are REAL seconds since 2001-01-01")

        let reopened = try makeContainer(Models.specimen)
        let moments = try fetchAll(Specimen.self, in: reopened.viewContext, sortedBy: "moment").map(\.moment)
        XCTAssertEqual(moments, dates.sorted())
    }

    func testTransientAttributesAreNeverStored() throws {
        do {
            let container = try makeContainer(Models.company)
            let employee = Employee(context: container.viewContext)
            employee.firstName = "Ann"
            employee.scratch = "in memory only"
            try container.viewContext.save()
            XCTAssertEqual(employee.scratch, "in memory only", "a transient value stays on the object after save")
        }
        let columns = try SQLiteFile(storeURL).columns(of: "ZEMPLOYEE")
        XCTAssertFalse(columns.contains("ZSCRATCH"), "a transient attribute has no column: \(columns)")
        let reopened = try makeContainer(Models.company)
        let employee = try XCTUnwrap(fetchAll(Employee.self, in: reopened.viewContext).first)
        XCTAssertEqual(employee.firstName, "Ann")
        XCTAssertNil(employee.scratch)
    }
}
