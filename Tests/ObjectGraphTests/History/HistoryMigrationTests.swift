import Foundation
import ObjectGraph
import XCTest

/// Persistent history across a lightweight migration: the transactions recorded before it
/// are still there after it, their changes name the objects by their (renumbered) entities,
/// and a token taken before it still reads what came after.
final class HistoryMigrationTests: StoreTestCase {
    /// (entity, key, change type) of every change, transaction by transaction.
    private func changes(_ transactions: [HistoryTransaction]) -> [[String]] {
        transactions.map { transaction in
            transaction.changes.map { "\($0.changedObjectID.entityName)/\($0.changedObjectID.primaryKey ?? 0)/\($0.changeType)" }
        }
    }

    func testHistoryRecordedBeforeAMigrationSurvivesIt() throws {
        let recorded: [HistoryTransaction]
        let firstToken: HistoryToken
        do {
            let container = try PersistentContainer(name: "Test", entities: Models.company, storeURL: storeURL, options: [.persistentHistory])
            let context = container.viewContext
            context.transactionAuthor = "importer"
            let sales = Department(context: context)
            sales.name = "Sales"
            let ann = Employee(context: context)
            ann.firstName = "Ann"
            ann.department = sales
            let max = Manager(context: context)
            max.firstName = "Max"
            try context.save()
            firstToken = try XCTUnwrap(container.currentHistoryToken())
            ann.age = 41
            context.delete(max)
            try context.save()
            recorded = try container.history(after: nil as HistoryToken?)
            container.persistentStoreCoordinator.close()
        }
        XCTAssertEqual(recorded.count, 2)

        // Aardvark sorts first: every entity is renumbered by the migration.
        let migrated = try PersistentContainer(name: "Test", entities: Models.company + [Aardvark.self], storeURL: storeURL,
                                               options: [.persistentHistory])
        XCTAssertTrue(migrated.recordsHistory, "the migrated store still has Core Data's history tables")
        let after = try migrated.history(after: nil as HistoryToken?)
        XCTAssertEqual(after.map(\.token), recorded.map(\.token), "the same transactions, with the same tokens")
        XCTAssertEqual(after.map(\.author), ["importer", "importer"])
        XCTAssertEqual(changes(after), changes(recorded), "each change names its object under its entity, renumbered")
        XCTAssertNil(try XCTUnwrap(after.dropFirst().first).changes.first { $0.changeType == .update }?.updatedProperties,
                     "an update's changed properties from before the migration are not known (their bits named the old entity's properties)")
        let context = migrated.viewContext
        let deleted = Set(after.flatMap(\.changes).filter { $0.changeType == .delete }.map(\.changedObjectID))
        XCTAssertEqual(deleted.map(\.entityName), ["Manager"])
        for change in after.flatMap(\.changes) where !deleted.contains(change.changedObjectID) {
            XCTAssertNoThrow(try context.existingObject(with: change.changedObjectID), "\(change.changedObjectID) resolves in the migrated store")
        }

        let cy = Employee(context: context)
        cy.firstName = "Cy"
        try context.save()
        let since = try migrated.history(after: firstToken)
        XCTAssertEqual(since.count, 2, "a token taken before the migration reads the rest, and the save made after it")
        XCTAssertEqual(since.last?.changes.map(\.changedObjectID), [cy.objectID])
        try assertStoreIntegrity(storeURL)
    }
}
