import Foundation
import ObjectGraph
import XCTest

/// Hostile values and `%K` arguments never change a statement's shape: the store stays
/// intact and a predicate returns only what it means.
final class PredicateInjectionTests: QueryTestCase {
    static let corpus = [
        "x' OR '1'='1", "' OR 1=1 --", "'; DROP TABLE ZQEMPLOYEE; --", "Robert'); DROP TABLE ZQEMPLOYEE;--",
        "\" OR \"\"=\"", "/* comment */", "*/ OR 1=1 /*", "-- ", ";", "%", "_", "*", "?", "\\", "\\'", "''", "%' --",
        "x\u{0}y", "ZLASTNAME", "t.ZLASTNAME", "1) OR (1=1", "og_str(0, 0, 'a', 'a')", "' || (SELECT COUNT(*) FROM ZQEMPLOYEE) || '",
    ]

    private func tableIsIntact(file: StaticString = #filePath, line: UInt = #line) throws {
        let fresh = try makeContainer()
        var request = FetchRequest<QEmployee>()
        request.includesPendingChanges = false
        XCTAssertEqual(try fresh.viewContext.count(for: request), 7 + Self.corpus.count, file: file, line: line)
        XCTAssertEqual(try fresh.viewContext.count(for: FetchRequest<QDepartment>()), 3, file: file, line: line)
    }

    func testHostileValuesMatchOnlyTheObjectsThatHoldThem() throws {
        try seedCompany()
        for (index, text) in Self.corpus.enumerated() {
            let employee = QEmployee(context: context)
            employee.firstName = "hostile\(index)"
            employee.lastName = text
        }
        try context.save()
        for (index, text) in Self.corpus.enumerated() {
            let name = "hostile\(index)"
            for format in ["lastName == %@", "lastName ==[c] %@", "lastName ==[cd] %@", "lastName IN %@"] {
                let argument: Any = format.hasSuffix("IN %@") ? [text] : text
                let predicate = try FetchPredicate(format, argument)
                XCTAssertEqual(try sqlNames(predicate), [name], "\(format) with \(text.debugDescription)")
                XCTAssertEqual(try memoryNames(predicate), [name], "memory: \(format) with \(text.debugDescription)")
            }
            for format in ["lastName BEGINSWITH %@", "lastName ENDSWITH %@", "lastName CONTAINS %@", "lastName BEGINSWITH[cd] %@"] {
                let predicate = try FetchPredicate(format, text)
                let sql = try sqlNames(predicate)
                XCTAssertTrue(sql.contains(name), "\(format) with \(text.debugDescription)")
                XCTAssertEqual(sql, try memoryNames(predicate), "\(format) with \(text.debugDescription)")
            }
            let like = try FetchPredicate("lastName LIKE %@", text)
            XCTAssertEqual(try sqlNames(like), try memoryNames(like), "LIKE \(text.debugDescription)")
            let matches = try FetchPredicate("lastName MATCHES %@", text)
            if (try? NSRegularExpression(pattern: text)) == nil {     // no regular expression: refused, not answered
                XCTAssertThrowsError(try sqlNames(matches)) { XCTAssertEqual(($0 as? FetchPredicateError)?.code, .syntax) }
            } else {
                XCTAssertEqual(try sqlNames(matches), try memoryNames(matches), "MATCHES \(text.debugDescription)")
            }
            let notEqual = try FetchPredicate("lastName != %@ AND firstName BEGINSWITH 'hostile'", text)
            XCTAssertEqual(try sqlNames(notEqual).count, Self.corpus.count - 1)
        }
        try tableIsIntact()
    }

    func testValuesAreBoundNeverSpliced() throws {
        try seedCompany()
        startRecording()
        _ = try sqlNames(try FetchPredicate("lastName == %@ OR nickname CONTAINS[cd] %@ OR department.name BEGINSWITH %@",
                                            "Robert'); DROP", "secret-value", "another-secret"))
        let statement = try XCTUnwrap(recorder.queries.last)
        for secret in ["Robert", "secret-value", "another-secret", "DROP"] {
            XCTAssertFalse(statement.contains(secret), statement)
        }
        XCTAssertTrue(statement.contains("?"), statement)
    }

    func testAKeyArgumentWithSQLInItIsAnUnknownKeyAndRunsNothing() throws {
        try seedCompany()
        startRecording()
        let keys = [
            "lastName; DROP TABLE ZQEMPLOYEE", "lastName) OR (1=1", "lastName --", "ZLASTNAME", "t.ZLASTNAME", "Z_PK",
            "lastName OR 1", "1", "", "department.name; --", "department.Z_PK", "lastName\u{0}", "*", "lastName.@count",
        ]
        for key in keys {
            XCTAssertThrowsError(try sqlNames(try FetchPredicate("%K == %@", key, "Smith")), key.debugDescription) { error in
                let code = (error as? FetchPredicateError)?.code
                XCTAssertTrue(code == .unknownKey || code == .unsupported, "\(key.debugDescription): \(error)")
            }
            var sort = FetchRequest<QEmployee>()
            sort.sortDescriptors = [SortKey(key)]
            XCTAssertThrowsError(try context.fetch(sort), key.debugDescription)
            XCTAssertThrowsError(try context.aggregate(.max, of: key, for: FetchRequest<QEmployee>()), key.debugDescription)
        }
        XCTAssertTrue(recorder.queries.isEmpty, "no SQL ran: \(recorder.queries)")
        try tableIsIntact(expectingHostileRows: false)
    }

    func testHostileFormatStringsAreSyntaxErrors() throws {
        try seedCompany()
        startRecording()
        let formats = [
            "lastName == 'x'; DROP TABLE ZQEMPLOYEE", "lastName == 'x' -- ' AND age > 1", "lastName == 'x' /* */",
            "lastName == x' OR '1'='1", "lastName == 'x') OR (1=1", "lastName == `x`", "age > 1 UNION SELECT 1",
        ]
        for format in formats {
            XCTAssertThrowsError(try sqlNames(try FetchPredicate(format)), format) { error in
                let code = (error as? FetchPredicateError)?.code
                XCTAssertTrue(code == .syntax || code == .unknownKey, "\(format): \(error)")
            }
        }
        XCTAssertTrue(recorder.queries.isEmpty, "no SQL ran: \(recorder.queries)")
        try tableIsIntact(expectingHostileRows: false)
    }

    private func tableIsIntact(expectingHostileRows: Bool) throws {
        let fresh = try makeContainer()
        var request = FetchRequest<QEmployee>()
        request.includesPendingChanges = false
        XCTAssertEqual(try fresh.viewContext.count(for: request), 7)
        XCTAssertEqual(try fresh.viewContext.count(for: FetchRequest<QDepartment>()), 3)
    }
}
