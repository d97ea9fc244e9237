import Foundation
import ObjectGraph
import XCTest

/// A rule Xcode wrote (EasyLife's `TodoItem.repeats`, `minValueString="0"`) is enforced on the
/// store Apple's Core Data wrote with that model, which opens without migration: rules are not
/// part of the version hash.
final class AppleStoreValidationRuleTests: StoreTestCase {
    // Before: repeats = -1 was saved into Apple's store.
    func testEasyLifesMinimumIsEnforcedOnItsOwnStore() throws {
        let url = try Fixtures.copy("EasyLife", "EasyLife-1.5.0.sqlite", into: directory)
        let model = try ManagedObjectModel(contentsOf: Fixtures.directory.appendingPathComponent("EasyLife/EasyLife-1.5.0.xcdatamodel-contents.xml"))
        let rules = (model.entitiesByName["TodoItem"]?.property(named: "repeats") as? AttributeDescription)?.validationRules
        XCTAssertEqual(rules, AttributeValidationRules(minimum: .integer(0)))
        let container = try PersistentContainer(name: "EasyLife", model: model, storeURL: url)
        let context = container.viewContext
        var request = FetchRequest<ManagedObject>(entityName: "TodoItem")
        request.predicate = try FetchPredicate("name == %@", "call landlord")
        let landlord = try XCTUnwrap(try context.fetch(request).first)

        try landlord.setValue(Int16(-1), forKey: "repeats")
        XCTAssertThrowsError(try context.save()) { error in
            let problems = (error as? ValidationError)?.problems ?? []
            XCTAssertEqual(problems.map(\.key), ["repeats"], "\(error)")
            XCTAssertEqual(problems.first?.rule, .numberTooSmall)
            XCTAssertEqual(problems.first?.rule?.coreDataCode, 1620)
            XCTAssertEqual(problems.first?.entity, "TodoItem")
        }
        let reader = try PersistentContainer(name: "EasyLife", model: model, storeURL: url)
        XCTAssertEqual(try reader.viewContext.fetch(request).first?.value(forKey: "repeats") as? Int16, 0, "Apple's value is kept")

        try landlord.setValue(Int16(3), forKey: "repeats")
        try context.save()
        let again = try PersistentContainer(name: "EasyLife", model: model, storeURL: url)
        XCTAssertEqual(try again.viewContext.fetch(request).first?.value(forKey: "repeats") as? Int16, 3)
    }
}
