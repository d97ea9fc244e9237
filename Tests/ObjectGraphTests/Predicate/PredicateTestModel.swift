import Foundation
import ObjectGraph
import XCTest

// The model and data of the predicate conformance tests that check Foundation's meaning
// (P-prefixed; the Q model of QueryTestSupport has no Float attribute or text with newlines).

final class PItem: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var note: String? = nil
    @Attribute var score: Float = 0
    @Attribute var ratio: Double = 0
    @Attribute var count: Int = 0
    @Attribute var flags: Int = 0
    @Relationship(inverse: \PTag.$item, deleteRule: .cascade) var tags: Set<PTag>
}

final class PTag: ManagedObject {
    @Attribute var label: String = ""
    @Attribute var weight: Int = 0
    @Relationship(deleteRule: .nullify) var item: PItem?
}

/// One predicate, the items Foundation selects with it, and where that answer comes from.
struct PredicateCase {
    let format: String
    let arguments: [Any?]
    let expected: Set<String>
    let file: StaticString
    let line: UInt
    init(_ format: String, _ arguments: [Any?] = [], _ expected: Set<String>, file: StaticString = #filePath, line: UInt = #line) {
        (self.format, self.arguments, self.expected, self.file, self.line) = (format, arguments, expected, file, line)
    }
}

/// A fresh store with five items per test; every case runs through SQL and in memory.
class PredicateModelTestCase: XCTestCase {
    var directory: URL!
    var container: PersistentContainer!
    var context: ManagedObjectContext { container.viewContext }
    /// name: A "abc", B "wxyz", C "", D "Ünïcode", E "x\n".
    static let everyone: Set<String> = ["abc", "wxyz", "", "Ünïcode", "x\n"]

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("PredicateTests-\(UUID().uuidString)")
        container = try PersistentContainer(name: "Predicates", entities: [PItem.self, PTag.self],
                                            storeURL: directory.appendingPathComponent("Predicates.sqlite"))
        try seed()
    }

    override func tearDownWithError() throws {
        container = nil
        try? FileManager.default.removeItem(at: directory)
        try super.tearDownWithError()
    }

    private func seed() throws {
        let context = self.context
        func item(_ name: String, _ note: String?, _ score: Float, _ ratio: Double, _ count: Int, _ flags: Int, _ tags: [(String, Int)]) {
            let item = PItem(context: context)
            (item.name, item.note, item.score, item.ratio, item.count, item.flags) = (name, note, score, ratio, count, flags)
            for (label, weight) in tags {
                let tag = PTag(context: context)
                (tag.label, tag.weight, tag.item) = (label, weight, item)
            }
        }
        item("abc", nil, 1.7, 0.5, 3, 5, [("x", 1), ("y", 2)])
        item("wxyz", "line1\nline2", 2.5, 1.5, 10, 2, [("z", 5)])
        item("", "", 0, -2, -4, 0, [])
        item("Ünïcode", "bc", 1.1, 3.0, 7, 7, [("w", 3)])
        item("x\n", "abc", 2, 0, 0, 8, [])
        try context.save()
    }

    /// Names of the items `predicate` selects through SQL.
    func sqlNames(_ predicate: FetchPredicate) throws -> Set<String> {
        var request = FetchRequest<PItem>(predicate: predicate)
        request.includesPendingChanges = false
        return Set(try context.fetch(request).map(\.name))
    }

    /// Names of the items `predicate` selects in memory.
    func memoryNames(_ predicate: FetchPredicate) throws -> Set<String> {
        Set(try context.fetch(FetchRequest<PItem>()).filter { try predicate.evaluate(with: $0) }.map(\.name))
    }

    /// Runs each case through both back ends; both must give the expected items.
    func check(_ cases: [PredicateCase]) {
        for test in cases {
            do {
                let predicate = try FetchPredicate(test.format, argumentArray: test.arguments)
                let sql = try sqlNames(predicate)
                let memory = try memoryNames(predicate)
                XCTAssertEqual(sql, memory, "SQL and memory disagree on \(test.format)", file: test.file, line: test.line)
                XCTAssertEqual(sql, test.expected, "SQL: \(test.format)", file: test.file, line: test.line)
                XCTAssertEqual(memory, test.expected, "memory: \(test.format)", file: test.file, line: test.line)
            } catch {
                XCTFail("\(test.format): \(error)", file: test.file, line: test.line)
            }
        }
    }

    /// The error `format` gives when parsed and bound to `PItem` (nil when it gives none).
    func predicateError(_ format: String, _ arguments: [Any?] = []) -> FetchPredicateError? {
        do {
            let predicate = try FetchPredicate(format, argumentArray: arguments)
            _ = try sqlNames(predicate)
            _ = try memoryNames(predicate)
            return nil
        } catch {
            return error as? FetchPredicateError
        }
    }
}
