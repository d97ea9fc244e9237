import Foundation
import ObjectGraph
import XCTest

/// Uniquing through the context's identity map while it grows and while objects leave it in
/// any order (each deallocation removes an entry from the middle of a probe run).
final class IdentityMapTests: StoreTestCase {
    func testUniquingSurvivesGrowthAndRemovalsInAnyOrder() throws {
        let container = try makeContainer()
        let context = container.viewContext
        for index in 0..<3_000 {
            let department = Department(context: context)
            department.name = "D\(index)"
        }
        try context.save()
        context.reset()

        var held = try context.fetch(FetchRequest<Department>())
        XCTAssertEqual(held.count, 3_000)
        XCTAssertEqual(context.registeredObjects.count, 3_000)
        let ids = held.map(\.objectID)

        // Let two thirds of the objects go, in a scrambled order: their entries leave the map.
        var generator = SplitMix(seed: 7)
        held.shuffle(using: &generator)
        let kept = Array(held.prefix(1_000))
        held = []
        XCTAssertEqual(context.registeredObjects.count, 1_000, "released objects left the identity map")

        let keptIDs = Set(kept.map(\.objectID))
        for (index, id) in ids.enumerated() {
            let registered = context.registeredObject(for: id)
            if keptIDs.contains(id) {
                XCTAssertTrue(registered === kept.first { $0.objectID == id }, "object \(index) is still found")
            } else {
                XCTAssertNil(registered, "object \(index) was released and is no longer registered")
            }
        }

        // A second fetch returns the kept instances (with their values), new ones for the rest.
        let again = try context.fetch(FetchRequest<Department>())
        XCTAssertEqual(again.count, 3_000)
        let byID = Dictionary(uniqueKeysWithValues: again.map { ($0.objectID, $0) })
        for object in kept {
            XCTAssertTrue(byID[object.objectID] === object, "uniquing returns the registered instance")
            XCTAssertEqual(object.name, byID[object.objectID]?.name)
        }
        XCTAssertEqual(Set(again.map { ObjectIdentifier($0) }).count, 3_000, "one instance per row")
    }

    /// Keys far apart (a page each) and keys of two entities with the same numbers.
    func testScatteredKeysAndEqualKeysOfDifferentEntities() throws {
        let container = try makeContainer()
        let context = container.viewContext
        for index in 0..<1_000 {
            let department = Department(context: context)
            department.name = "D\(index)"
            let employee = Employee(context: context)
            employee.firstName = "E\(index)"
        }
        try context.save()
        context.reset()

        var departments = try context.fetch(FetchRequest<Department>())
        let employees = try context.fetch(FetchRequest<Employee>())
        XCTAssertEqual(context.registeredObjects.count, 2_000)
        // Keep every 37th department: most pages of the department keys empty out and go.
        let kept = stride(from: 0, to: departments.count, by: 37).map { departments[$0] }
        departments = []
        XCTAssertEqual(context.registeredObjects.count, 1_000 + kept.count)
        for department in kept {
            XCTAssertTrue(context.registeredObject(for: department.objectID) === department)
        }
        for employee in employees.prefix(50) {
            XCTAssertTrue(context.registeredObject(for: employee.objectID) === employee,
                          "an employee is not confused with the department of the same key")
        }
        let again = try context.fetch(FetchRequest<Department>())
        let byID = Dictionary(uniqueKeysWithValues: again.map { ($0.objectID, $0) })
        for department in kept { XCTAssertTrue(byID[department.objectID] === department) }
        XCTAssertEqual(context.registeredObjects.count, 2_000)
    }

    func testTemporaryAndPermanentIDsOfTheSameObject() throws {
        let container = try makeContainer()
        let context = container.viewContext
        let department = Department(context: context)
        department.name = "Sales"
        let temporary = department.objectID
        XCTAssertTrue(context.registeredObject(for: temporary) === department)
        try context.save()
        let permanent = department.objectID
        XCTAssertNotEqual(temporary, permanent)
        XCTAssertNil(context.registeredObject(for: temporary), "the temporary ID is retired at save")
        XCTAssertTrue(context.registeredObject(for: permanent) === department)
        XCTAssertTrue(context.object(with: permanent) === department)
    }
}

/// A small deterministic generator, so the scrambled order is the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
