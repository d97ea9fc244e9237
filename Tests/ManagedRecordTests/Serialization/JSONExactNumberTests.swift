import Foundation
import ManagedRecord
import ObjectGraph
import Synchronization
import XCTest

/// Every number the import reads is the number the text says, bit for bit: the JSON is read
/// with the numbers' text kept, and each attribute reads its value from all the digits
/// (`JSONSerialization` on Linux read `0.30000000000000004` as `0.3000000000000001`).
final class JSONExactNumberTests: JSONTestCase {
    private func importOne(_ record: String) throws -> Specimen {
        try Specimen.importJSON(json("[\(record)]"), relatedBy: "code")
        return try XCTUnwrap(Specimen.fetchAll().first)
    }

    func testDoublesInTheTextAreStoredBitForBit() throws {
        let specimen = try importOne(#"{"code": "a", "ratio": 0.30000000000000004, "maybeRatio": 123456789.12345678}"#)
        XCTAssertEqual(specimen.ratio.bitPattern, (0.1 + 0.2).bitPattern, "\(specimen.ratio)")
        XCTAssertEqual(specimen.maybeRatio?.bitPattern, 123456789.12345678.bitPattern, "\(String(describing: specimen.maybeRatio))")
    }

    /// (Negative zero is left out: SQLite keeps a REAL -0.0 as 0; see the probe's test below
    /// for the JSON side of it.)
    func testExportedDoublesAndFloatsImportBitForBitIncludingTheExtremes() throws {
        let doubles: [Double] = [0.1 + 0.2, 123456789.12345678, .leastNormalMagnitude.nextDown, .leastNonzeroMagnitude, .leastNormalMagnitude,
                                 .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e15, 1e15 + 0.5, 2.0 / 3.0]
        let floats: [Float] = [Float.leastNormalMagnitude.nextDown, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 16_777_218]
        for (index, value) in doubles.enumerated() {
            let specimen = Specimen.newEntity()
            specimen.code = "d\(index)"
            specimen.ratio = value
            specimen.maybeRatio = -value
            specimen.score = floats[index % floats.count]
        }
        try Specimen.commit()
        var sorted = JSONExportOptions()
        sorted.prettyPrinted = true
        let exported = try Specimen.exportJSON(sortedBy: [SortKey("code")], options: sorted)
        try Specimen.deleteStore()
        try Specimen.importJSON(exported, relatedBy: "code")
        let after = try Specimen.fetchAll(sortedBy: [SortKey("code")])
        XCTAssertEqual(after.count, doubles.count)
        for specimen in after {
            let index = Int(specimen.code.dropFirst())!
            XCTAssertEqual(specimen.ratio.bitPattern, doubles[index].bitPattern, "\(specimen.code): \(specimen.ratio) for \(doubles[index])")
            XCTAssertEqual(specimen.maybeRatio?.bitPattern, (-doubles[index]).bitPattern, specimen.code)
            XCTAssertEqual(specimen.score.bitPattern, floats[index % floats.count].bitPattern, specimen.code)
        }
        XCTAssertEqual(try Specimen.exportJSON(sortedBy: [SortKey("code")], options: sorted), exported, "the second export is the first, byte for byte")
    }

    func testIntegersPastInt64AreReadFromTheirDigits() throws {
        let specimen = try importOne(#"""
            {"code": "a", "large": -9223372036854775808, "maybeLarge": 9223372036854775807, "ratio": 18446744073709551617, "count": 4.2e1}
            """#)
        XCTAssertEqual(specimen.large, .min)
        XCTAssertEqual(specimen.maybeLarge, .max)
        XCTAssertEqual(specimen.ratio.bitPattern, Double("18446744073709551617")!.bitPattern)
        XCTAssertEqual(specimen.count, 42, "a number with an exponent that is a whole number is an integer")
    }

    func testAnIntegerOnePastInt64IsRefusedNamingTheRecordAndKey() throws {
        XCTAssertThrowsError(try Specimen.importJSON(json(#"[{"code": "a", "large": 9223372036854775808}]"#), relatedBy: "code")) { error in
            let failure = error as? JSONImportError
            XCTAssertEqual(failure?.code, .wrongType, "\(error)")
            XCTAssertEqual(failure?.key, "large")
            XCTAssertEqual(failure?.index, 0)
        }
        XCTAssertEqual(try Specimen.count(), 0)
    }

    /// A number given as a string is read as exactly as one given as a number: a string past
    /// `Double`'s range (`"1e400"`, `"-1e400"`) was stored as an infinity, and an integral
    /// string past 2^53 (`"9007199254740993.0"`) went through a `Double` and was stored one less.
    func testNumbersGivenAsStringsAreReadAsExactlyAsNumbers() throws {
        for record in [#"{"code": "a", "ratio": "1e400"}"#, #"{"code": "a", "maybeRatio": "-1e400"}"#,
                       #"{"code": "a", "score": "1e39"}"#, #"{"code": "a", "large": "9223372036854775808.0"}"#,
                       #"{"code": "a", "count": "4.0000000000000000001"}"#, #"{"code": "a", "price": "0x10"}"#] {
            XCTAssertThrowsError(try Specimen.importJSON(json("[\(record)]"), relatedBy: "code"), record) { error in
                XCTAssertEqual((error as? JSONImportError)?.code, .wrongType, "\(record): \(error)")
            }
            XCTAssertEqual(try Specimen.count(), 0, record)
        }
        let specimen = try importOne(#"{"code": "a", "large": "9007199254740993.0", "maybeLarge": "9007199254740993e0", "count": " 42 "}"#)
        XCTAssertEqual(specimen.large, 9_007_199_254_740_993)
        XCTAssertEqual(specimen.maybeLarge, 9_007_199_254_740_993)
        XCTAssertEqual(specimen.count, 42)
    }

    func testADoubleInsideACodableValueIsExact() throws {
        let specimen = try importOne(#"{"code": "a", "size": {"width": 0.30000000000000004, "height": 1e-320, "tags": ["x"]}}"#)
        XCTAssertEqual(specimen.size.width.bitPattern, (0.1 + 0.2).bitPattern)
        XCTAssertEqual(specimen.size.height.bitPattern, Double("1e-320")!.bitPattern)
        let exported = try Specimen.exportJSON()
        XCTAssertTrue(String(decoding: exported, as: UTF8.self).contains("0.30000000000000004"), String(decoding: exported, as: UTF8.self))
    }

    /// A Codable value's -0.0 is stored by JSONEncoder as `-0`; the export read that as the
    /// integer 0 and wrote `0` (found by the JSON oracle, seed 1).
    func testNegativeZeroInsideACodableValueIsExportedWithItsSign() throws {
        let specimen = Specimen.newEntity()
        specimen.code = "z"
        specimen.size = Dimensions(width: -0.0, height: 1, tags: [])
        try Specimen.commit()
        let exported = String(decoding: try Specimen.exportJSON(), as: UTF8.self)
        XCTAssertTrue(exported.contains("\"width\":-0.0"), exported)
        try Specimen.deleteStore()
        try Specimen.importJSON(Data(exported.utf8), relatedBy: "code")
        XCTAssertEqual(try XCTUnwrap(Specimen.fetchAll().first).size.width.bitPattern, (-0.0).bitPattern)
    }

    func testMalformedJSONSaysWhere() throws {
        XCTAssertThrowsError(try Specimen.importJSON(json("[{\"code\": \"a\",\n \"ratio\": 01}]"), relatedBy: "code")) { error in
            XCTAssertEqual((error as? JSONImportError)?.code, .malformedJSON, "\(error)")
            XCTAssertTrue("\(error)".contains("line 2, column 11"), "\(error)")
        }
    }

    func testStringsWithEscapesSurrogatePairsAndNULAreRead() throws {
        let specimen = try importOne(#"{"code": "a", "title": "\u0000\r\n\"\\\/\b\f\t\ud83d\ude00é́", "maybeTitle": "\uD834\uDD1E"}"#)
        XCTAssertEqual(Array(specimen.title.unicodeScalars), Array("\u{0}\r\n\"\\/\u{8}\u{C}\t😀é\u{301}".unicodeScalars))
        XCTAssertEqual(specimen.maybeTitle, "𝄞")
    }
}

/// An object that notes each `amount` it is inserted with, before the store (which keeps a
/// decimal as a REAL, as Core Data does) sees it.
final class DecimalProbe: ManagedObject {
    @Attribute var amount: Decimal = 0
    static let seen = Mutex<[Decimal]>([])

    override func validateForInsert() throws {
        let amount = self.amount
        Self.seen.withLock { $0.append(amount) }
        try super.validateForInsert()
    }
}

/// A decimal is read from its text, not through a `Double`: 30 digits, and 37 decimal
/// places, reach the object as written (they came as `1.2345678901234568e+29`).
final class JSONExactDecimalTests: XCTestCase {
    func testADecimalIsReadFromItsDigits() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("json-decimal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try PersistentContainer(name: "Probe", entities: [DecimalProbe.self], storeURL: folder.appendingPathComponent("Probe.sqlite"))
        defer { container.persistentStoreCoordinator.close() }
        DecimalProbe.seen.withLock { $0 = [] }
        let texts = ["123456789012345678901234567890", "0.1234567890123456789012345678901234567", "-98765432109876543210.5"]
        let json = "[" + texts.map { "{\"amount\": \($0)}, {\"amount\": \"\($0)\"}" }.joined(separator: ", ") + "]"
        // Each reaches the object as written; SQLite, which keeps a Decimal as a double, then
        // refuses the save (more than 15 significant digits) rather than round them.
        XCTAssertThrowsError(try container.viewContext.importJSON(Data(json.utf8), entityName: "DecimalProbe")) { error in
            XCTAssertTrue("\(error)".contains("amount"), "\(error)")
        }
        XCTAssertEqual(DecimalProbe.seen.withLock { $0 }, texts.flatMap { [Decimal(string: $0)!, Decimal(string: $0)!] })
    }

    /// -0.0 is written `-0.0` (it was written `0`) and read back with its sign. (An object
    /// does not keep it: setting -0.0 over 0 is no change, and SQLite keeps a REAL -0.0 as 0.)
    func testNegativeZeroIsWrittenAndReadWithItsSign() throws {
        XCTAssertEqual(JSONWriter.text(of: -0.0), "-0.0")
        XCTAssertEqual(JSONWriter.text(of: 0.0), "0")
        let parsed = try XCTUnwrap(JSONParser.parse(Data("[-0.0, -0, 0]".utf8)) as? [JSONNumber])
        XCTAssertEqual(parsed.compactMap(\.double).map(\.bitPattern), [(-0.0).bitPattern, (-0.0).bitPattern, 0])
    }
}
