import CMemoryStats
import Foundation
import ObjectGraph
import XCTest

/// An entity with more slots than a 64-bit mask holds.
final class WideRecord: ManagedObject {
    @Attribute var a0: Int = 0
    @Attribute var a1: Int = 0
    @Attribute var a2: Int = 0
    @Attribute var a3: Int = 0
    @Attribute var a4: Int = 0
    @Attribute var a5: Int = 0
    @Attribute var a6: Int = 0
    @Attribute var a7: Int = 0
    @Attribute var a8: Int = 0
    @Attribute var a9: Int = 0
    @Attribute var a10: Int = 0
    @Attribute var a11: Int = 0
    @Attribute var a12: Int = 0
    @Attribute var a13: Int = 0
    @Attribute var a14: Int = 0
    @Attribute var a15: Int = 0
    @Attribute var a16: Int = 0
    @Attribute var a17: Int = 0
    @Attribute var a18: Int = 0
    @Attribute var a19: Int = 0
    @Attribute var a20: Int = 0
    @Attribute var a21: Int = 0
    @Attribute var a22: Int = 0
    @Attribute var a23: Int = 0
    @Attribute var a24: Int = 0
    @Attribute var a25: Int = 0
    @Attribute var a26: Int = 0
    @Attribute var a27: Int = 0
    @Attribute var a28: Int = 0
    @Attribute var a29: Int = 0
    @Attribute var a30: Int = 0
    @Attribute var a31: Int = 0
    @Attribute var a32: Int = 0
    @Attribute var a33: Int = 0
    @Attribute var a34: Int = 0
    @Attribute var a35: Int = 0
    @Attribute var a36: Int = 0
    @Attribute var a37: Int = 0
    @Attribute var a38: Int = 0
    @Attribute var a39: Int = 0
    @Attribute var a40: Int = 0
    @Attribute var a41: Int = 0
    @Attribute var a42: Int = 0
    @Attribute var a43: Int = 0
    @Attribute var a44: Int = 0
    @Attribute var a45: Int = 0
    @Attribute var a46: Int = 0
    @Attribute var a47: Int = 0
    @Attribute var a48: Int = 0
    @Attribute var a49: Int = 0
    @Attribute var a50: Int = 0
    @Attribute var a51: Int = 0
    @Attribute var a52: Int = 0
    @Attribute var a53: Int = 0
    @Attribute var a54: Int = 0
    @Attribute var a55: Int = 0
    @Attribute var a56: Int = 0
    @Attribute var a57: Int = 0
    @Attribute var a58: Int = 0
    @Attribute var a59: Int = 0
    @Attribute var a60: Int = 0
    @Attribute var a61: Int = 0
    @Attribute var a62: Int = 0
    @Attribute var a63: Int = 0
    @Attribute var a64: Int = 0
    @Attribute var a65: Int = 0
    @Attribute var a66: Int = 0
    @Attribute var name: String = ""
    @Attribute var ratio: Double = 0
    @Attribute var note: String? = nil
}

/// The save path's own bookkeeping: text bound from a per-row buffer, keys of new objects,
/// snapshots updated in place, and the row cache when no other context reads it.
final class SavePathTests: StoreTestCase {
    func testTextsOfEveryLengthRoundTripInOneSave() throws {
        let texts = ["", "a", "héllo wörld", "with\u{0}nul", String(repeating: "x", count: 1_000),
                     String(repeating: "ü", count: 3_000), String(repeating: "long ", count: 2_000), "after the long ones", ""]
        var ids: [ObjectID] = []
        do {
            let container = try makeContainer()
            let context = container.viewContext
            var specimens: [Specimen] = []
            for (index, text) in texts.enumerated() {
                let specimen = Specimen(context: context)
                specimen.text = text
                specimen.optionalText = index.isMultiple(of: 2) ? text + "!" : nil
                specimen.link = URL(string: "https://example.com/\(index)/" + String(repeating: "p", count: index * 300))!
                specimens.append(specimen)
            }
            try context.save()
            ids = specimens.map(\.objectID)
            // Updates bind through the same buffer.
            for (index, specimen) in specimens.enumerated() { specimen.text = texts[texts.count - 1 - index] }
            try context.save()
        }
        let container = try makeContainer()
        for (index, id) in ids.enumerated() {
            let specimen = try object(Specimen.self, try translate(id, to: container), in: container.viewContext)
            XCTAssertEqual(specimen.text, texts[texts.count - 1 - index], "text of #\(index)")
            XCTAssertEqual(specimen.optionalText, index.isMultiple(of: 2) ? texts[index] + "!" : nil, "optional text of #\(index)")
            XCTAssertEqual(specimen.link.absoluteString, "https://example.com/\(index)/" + String(repeating: "p", count: index * 300))
        }
    }

    func testForeignKeysOfNewObjectsNameTheirNewRowsAcrossEntities() throws {
        var expected: [String: String] = [:]
        do {
            let container = try makeContainer()
            let context = container.viewContext
            let departments = (0..<3).map { index -> Department in
                let department = Department(context: context)
                department.name = "D\(index)"
                return department
            }
            let boss = Manager(context: context)
            boss.firstName = "Boss"
            boss.department = departments[0]
            for index in 0..<40 {
                let employee = Employee(context: context)
                employee.firstName = "E\(index)"
                employee.department = departments[index % 3]
                employee.manager = index.isMultiple(of: 5) ? boss : nil
                expected["E\(index)"] = "D\(index % 3)"
            }
            expected["Boss"] = "D0"
            try context.save()
            XCTAssertTrue(departments.allSatisfy { !$0.objectID.isTemporaryID })
            XCTAssertTrue(departments[1].employees.allSatisfy { !$0.objectID.isTemporaryID },
                          "the to-many sets hold the permanent IDs")
            XCTAssertEqual(departments[1].employees.count, 13)
        }
        let container = try makeContainer()
        let employees = try fetchAll(Employee.self, in: container.viewContext)
        XCTAssertEqual(employees.count, 41)
        for employee in employees {
            XCTAssertEqual(employee.department?.name, expected[employee.firstName], employee.firstName)
            let index = Int(employee.firstName.dropFirst()) ?? -1
            XCTAssertEqual(employee.manager?.firstName, index >= 0 && index.isMultiple(of: 5) ? "Boss" : nil, employee.firstName)
        }
        XCTAssertEqual(try fetchAll(Manager.self, in: container.viewContext).first?.reports.count, 8)
    }

    func testSavedChangesAreTheNewSnapshotAndLaterChangesRollBackToThem() throws {
        let container = try makeContainer()
        let context = container.viewContext
        let department = Department(context: context)
        department.name = "Sales"
        department.budget = 10
        try context.save()
        context.refresh(department, mergeChanges: false)
        department.budget = 20                     // the fetched snapshot is copied on this change
        department.name = "Sales & Marketing"
        try context.save()
        XCTAssertFalse(department.hasChanges)
        XCTAssertFalse(context.hasChanges)
        department.budget = 30
        XCTAssertTrue(department.hasChanges)
        context.rollback()
        XCTAssertEqual(department.budget, 20)
        XCTAssertEqual(department.name, "Sales & Marketing")
        department.budget = .nan                   // never equal to itself: always a change
        XCTAssertTrue(context.hasChanges)
        XCTAssertThrowsError(try context.save(), "no store keeps NaN") { XCTAssertTrue($0 is ValidationError, "\($0)") }
        department.budget = 40
        try context.save()
        let other = try makeContainer()
        let stored = try object(Department.self, try translate(department.objectID, to: other), in: other.viewContext)
        XCTAssertEqual(stored.budget, 40)
        XCTAssertEqual(stored.name, "Sales & Marketing")
    }

    func testALoneContextsSaveKeepsNoCopyOfTheSavedRows() throws {
        let container = try makeContainer()
        let context = container.viewContext
        let long = String(repeating: "x", count: 2_000)
        let before = og_test_malloc_in_use()
        try XCTSkipIf(before == 0, "the C allocator does not report its bytes in use here")
        for index in 0..<5_000 {
            Department(context: context).name = long + "\(index)"  // held by the context until saved
        }
        try context.save()
        let kept = Int(og_test_malloc_in_use()) - Int(before)
        // Nobody else merges: the rows are not copied into the coordinator's row cache, where
        // they stayed after the objects were gone (10 MB of names here; 13.5 MB were kept
        // before, 2 MB now, about SQLite's page cache).
        XCTAssertLessThan(kept, 5_000_000, "\(kept) bytes still allocated after saving 5,000 objects nobody holds")
        let other = container.newBackgroundContext()
        try other.performAndWait {
            XCTAssertEqual(try other.count(for: FetchRequest<Department>()), 5_000)
            let names = try other.fetch(FetchRequest<Department>(predicate: try FetchPredicate("name ENDSWITH %@", "x4999")))
            XCTAssertEqual(names.map(\.name), [long + "4999"])
        }
    }

    func testAnUpdateSavedWithoutOtherContextsLeavesNoStaleRowInTheCache() throws {
        let container = try makeContainer()
        let context = container.viewContext
        let department = Department(context: context)
        department.name = "Before"
        var reader: ManagedObjectContext? = container.newBackgroundContext()
        XCTAssertNotNil(reader)
        try context.save()                         // another context exists: the row is cached
        let id = department.objectID
        reader = nil                               // now none
        department.name = "After"
        try context.save()
        let later = container.newBackgroundContext()
        try later.performAndWait {
            let fault = try later.existingObject(with: id) as! Department
            XCTAssertEqual(fault.name, "After", "the row of the second save, not the cached one of the first")
        }
    }

    func testARowSavedWhileAnotherContextMergesIsServedFromTheCache() throws {
        let container = try makeContainer()
        let context = container.viewContext
        let background = container.newBackgroundContext()
        let department = Department(context: context)
        department.name = "Cached"
        try context.save()
        let recorder = SQLRecorder(container.persistentStoreCoordinator)
        let id = department.objectID
        background.performAndWait {
            let fault = background.object(with: id) as! Department
            XCTAssertEqual(fault.name, "Cached")
        }
        XCTAssertEqual(recorder.selects, [], "the fault fired from the row cache")
    }

    func testAnEntityWithMoreThan64SlotsSavesInsertsUpdatesAndMerges() throws {
        let container = try makeContainer([WideRecord.self])
        let context = container.viewContext
        let records = (0..<5).map { index -> WideRecord in
            let record = WideRecord(context: context)
            record.a0 = index
            record.a66 = 100 + index
            record.name = "R\(index)"
            return record
        }
        try context.save()
        records[1].a65 = 7
        records[1].note = "seven"
        records[2].ratio = 0.5
        records[3].a1 = 1
        try context.save()
        XCTAssertFalse(context.hasChanges)

        // A conflict on a wide row, merged property by property.
        let other = container.newBackgroundContext()
        let id = records[4].objectID
        try other.performAndWait {
            let record = try other.existingObject(with: id) as! WideRecord
            record.a64 = 64
            try other.save()
        }
        context.mergePolicy = .mergeByPropertyObjectTrump
        records[4].a66 = 66
        try context.save()

        let check = try makeContainer([WideRecord.self])
        let stored = try fetchAll(WideRecord.self, in: check.viewContext, sortedBy: "a0")
        XCTAssertEqual(stored.map(\.name), ["R0", "R1", "R2", "R3", "R4"])
        XCTAssertEqual(stored.map(\.a66), [100, 101, 102, 103, 66])
        XCTAssertEqual(stored[1].a65, 7)
        XCTAssertEqual(stored[1].note, "seven")
        XCTAssertEqual(stored[2].ratio, 0.5)
        XCTAssertEqual(stored[3].a1, 1)
        XCTAssertEqual(stored[4].a64, 64, "the other context's change survives the merge")
    }
}
