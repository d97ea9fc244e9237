import Foundation
import ObjectGraph
import Testing

/// A Decimal with a uniqueness constraint (``ExactDecimalArgumentTests``).
final class PricedItem: ManagedObject {
    @Attribute var serial: Int = 0
    @Attribute(.unique) var price: Decimal = 0

    static let containerName = "PricedItems"
}

/// A Decimal argument reaches the store as exactly as a saved Decimal does: on PostgreSQL,
/// whose `numeric` columns keep 38 digits, a predicate's Decimal (format string, `IN` list,
/// `#Predicate`, a dictionary fetch's HAVING) and the uniqueness check's Decimal are sent as their exact text, so two
/// Decimals that differ past 15 significant digits are told apart; on SQLite, which keeps at
/// most 15 (docs/stores.md), values that differ within 15 digits are. A Decimal is exported
/// as its exact digits on both stores.
@Suite("Decimal arguments are exact", .onOwnThreads)
struct ExactDecimalArgumentTests {
    /// Two Decimals a store keeps exactly that a double cannot tell apart on PostgreSQL
    /// (38 and 29 digits), and two that differ within 15 digits on SQLite.
    private func pair(_ kind: StoreKind) -> (Decimal, Decimal) {
        switch kind {
        case .postgres:
            return (Decimal(string: "1234567890123456789012345678.9012345678")!,
                    Decimal(string: "1234567890123456789012345678.9012345679")!)
        case .sqlite:
            return (Decimal(string: "12345.6789012345")!, Decimal(string: "12345.6789012346")!)
        }
    }

    /// A container on a new store of `kind` holding one ``ValueSample`` per pair of
    /// `decimal` and `optionalDecimal`, with serials from 1.
    private func savedSamples(_ kind: StoreKind, _ values: [(Decimal, Decimal?)]) throws -> PersistentContainer {
        let container = try kind.newStore().valueContainer()
        let context = container.viewContext
        for (index, value) in values.enumerated() {
            let sample = ValueSample(context: context)
            sample.serial = index + 1
            sample.decimal = value.0
            sample.optionalDecimal = value.1
        }
        try context.save()
        return container
    }

    // Before: on PostgreSQL the argument was bound as a double, so `decimal == %@` with the
    // first value matched both rows, and `decimal > %@` matched neither.
    @Test("A Decimal argument compares exactly (==, !=, >, IN, BETWEEN, #Predicate, HAVING)", arguments: StoreKind.allCases)
    func predicateArgumentsAreExact(_ kind: StoreKind) throws {
        let (low, high) = pair(kind)
        let container = try savedSamples(kind, [(low, low), (high, high)])
        defer { container.persistentStoreCoordinator.close() }
        let fresh = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
        func serials(_ format: String, _ arguments: Any...) throws -> [Int] {
            try fresh.fetch(FetchRequest<ValueSample>(predicate: FetchPredicate(format, argumentArray: arguments), sortDescriptors: [SortKey("serial")])).map(\.serial)
        }
        #expect(try serials("decimal == %@", low) == [1])
        #expect(try serials("optionalDecimal == %@", high) == [2])
        #expect(try serials("decimal != %@", low) == [2])
        #expect(try serials("decimal > %@", low) == [2])
        #expect(try serials("optionalDecimal <= %@", low) == [1])
        #expect(try serials("decimal IN %@", [low]) == [1])
        #expect(try serials("decimal BETWEEN %@", [high, high]) == [2])
        #expect(try fresh.fetch(ValueSample.self, where: #Predicate { $0.decimal == low }).map(\.serial) == [1])
        #expect(try fresh.count(for: FetchRequest<ValueSample>(predicate: FetchPredicate("decimal == %@", high))) == 1)
        // Before: HAVING bound its Decimal as a double too (PostgreSQL: both groups' sums
        // matched), and SQLite compared the sum's exact text with the number (none matched).
        var groups = FetchRequest<ValueSample>(sortDescriptors: [SortKey("serial")])
        groups.propertiesToFetch = ["serial", .aggregate(.sum, of: "decimal", as: "total")]
        groups.propertiesToGroupBy = ["serial"]
        groups.havingPredicate = try FetchPredicate("total == %@", low)
        let having = try fresh.fetchDictionaries(groups)
        #expect(having.map { $0["serial"] as? Int } == [1], "\(having)")
        groups.havingPredicate = try FetchPredicate("total > %@", low)
        #expect(try fresh.fetchDictionaries(groups).map { $0["serial"] as? Int } == [2])
        // A Decimal against the other number types still compares as a number.
        #expect(try serials("double == %@ AND int64 < %@ AND %@ < decimal", Decimal(0), Decimal(string: "0.5")!, Decimal(-1)) == [1, 2])
    }

    // Before: both stores sorted a Decimal's sum by its text ("100" before "20").
    @Test("A dictionary fetch sorts by a Decimal's sum and average as numbers", arguments: StoreKind.allCases)
    func sortByDecimalSumIsNumeric(_ kind: StoreKind) throws {
        let container = try savedSamples(kind, [(100, nil), (20, nil), (-3, nil), (9.5, nil)])
        defer { container.persistentStoreCoordinator.close() }
        var groups = FetchRequest<ValueSample>(sortDescriptors: [SortKey("total")])
        groups.propertiesToFetch = ["serial", .aggregate(.sum, of: "decimal", as: "total"), .aggregate(.average, of: "decimal", as: "mean")]
        groups.propertiesToGroupBy = ["serial"]
        #expect(try container.viewContext.fetchDictionaries(groups).map { $0["serial"] as? Int } == [3, 4, 2, 1])
        groups.sortDescriptors = [SortKey("mean", ascending: false)]
        #expect(try container.viewContext.fetchDictionaries(groups).map { $0["serial"] as? Int } == [1, 2, 4, 3])
    }

    // Before: on PostgreSQL the uniqueness check bound the Decimal as a double and refused
    // the second item as a duplicate of the first.
    @Test("A unique Decimal that differs from a stored one past a double's digits is no conflict", arguments: StoreKind.allCases)
    func uniquenessCheckIsExact(_ kind: StoreKind) throws {
        let (low, high) = pair(kind)
        let store = try kind.newStore()
        let container = try store.container([PricedItem.self], name: PricedItem.containerName)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        context.mergePolicy = .error
        let first = PricedItem(context: context)
        first.serial = 1
        first.price = low
        try context.save()
        let second = PricedItem(context: context)
        second.serial = 2
        second.price = high
        try context.save()
        let duplicate = PricedItem(context: context)
        duplicate.serial = 3
        duplicate.price = high
        #expect(throws: ConstraintConflictError.self) { try context.save() }
        context.rollback()

        let fresh = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
        let items = try fresh.fetch(FetchRequest<PricedItem>(sortDescriptors: [SortKey("serial")]))
        #expect(items.map(\.price) == [low, high])
    }

    // Held already when written (issue 38 item 5): kept so that the export stays exact.
    @Test("A Decimal is exported as its exact digits (JSON and JSON Lines) and imported back equal", arguments: StoreKind.allCases)
    func exportIsExact(_ kind: StoreKind) throws {
        let (low, high) = pair(kind)
        let container = try savedSamples(kind, [(low, -high)])
        defer { container.persistentStoreCoordinator.close() }
        let fresh = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
        let data = try fresh.exportJSON(FetchRequest<ValueSample>())
        let exported = String(decoding: data, as: UTF8.self)
        #expect(exported.contains("\"decimal\":\(low)"), "\(exported)")
        #expect(exported.contains("\"optionalDecimal\":-\(high)"), "\(exported)")
        var lines: [String] = []
        try fresh.exportJSONLines(FetchRequest<ValueSample>()) { lines.append(String(decoding: $0, as: UTF8.self)) }
        #expect(lines.count == 1 && lines[0].contains("\(low)") && lines[0].contains("-\(high)"), "\(lines)")

        // Imported into an empty store of the same kind, it reads back equal.
        let target = try savedSamples(kind, [])
        defer { target.persistentStoreCoordinator.close() }
        try target.viewContext.importJSON(data, entityName: "ValueSample")
        try target.viewContext.save()
        let read = try ManagedObjectContext(coordinator: target.persistentStoreCoordinator).fetch(FetchRequest<ValueSample>())
        #expect(read.map(\.decimal) == [low] && read.map(\.optionalDecimal) == [-high])
    }
}
