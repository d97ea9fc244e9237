import CMemoryStats
import Foundation
import ObjectGraph
import XCTest

/// The shape of the user's benchmark record: eight attributes of the common types.
final class Roster: ManagedObject {
    @Attribute var ident: Int64 = 0
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date = Date(timeIntervalSince1970: 0)
    @Attribute var departmentId: Int64 = 0
    @Attribute var active: Bool = false
}

/// What a fetched object costs in memory. Every fetched object holds its slots (one
/// `SlotValue` per property) and its wrappers' ordinals, so a byte more in either is paid
/// once per property per object (docs/performance.md, "Memory per fetched object").
final class FetchedObjectMemoryTests: StoreTestCase {
    /// A slot is 24 bytes: a relationship's object ID keeps the enum's case in spare bits.
    /// With the ID's key as its last field, the case needed a 25th byte, so 32 per slot.
    func testASlotIsTwentyFourBytes() {
        XCTAssertEqual(MemoryLayout<SlotValue>.size, 24)
        XCTAssertEqual(MemoryLayout<SlotValue>.stride, 24)
    }

    func testAFetchedObjectOfEightAttributesCostsAtMost450Bytes() throws {
        let container = try makeContainer([Roster.self])
        let context = container.viewContext
        let count = 20_000
        for index in 0..<count {
            let roster = Roster(context: context)
            roster.ident = Int64(index)
            roster.firstName = "First\(index % 97)"
            roster.lastName = "Last\(index % 89)"
            roster.age = 20 + index % 40
            roster.salary = Double(index)
            roster.hired = Date(timeIntervalSince1970: Double(index))
            roster.departmentId = Int64(index % 10)
            roster.active = index.isMultiple(of: 2)
        }
        try context.save()
        context.reset()

        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            var warm = FetchRequest<Roster>()
            warm.fetchLimit = 10
            _ = try reader.fetch(warm)                   // statements prepared, caches warm
            let before = og_test_malloc_in_use()
            try XCTSkipIf(before == 0, "the C allocator does not report its bytes in use here")
            let fetched = try reader.fetch(FetchRequest<Roster>())
            let perObject = (Int(og_test_malloc_in_use()) - Int(before)) / count
            XCTAssertEqual(fetched.count, count)
            XCTAssertEqual(fetched.map(\.salary).reduce(0, +), Double(count * (count - 1) / 2))
            // A 128-byte block for the object (its eight ordinals in 2 bytes each), 240 for its
            // slots, about 10 for its identity-map entry, 8 in the result, plus what the
            // reader's row bookkeeping holds: 428 measured in a debug build. Before: a 144-byte
            // object and 32-byte slots (304 for eight), 508.
            XCTAssertLessThanOrEqual(perObject, 450, "\(perObject) bytes per fetched object")
        }
    }
}
