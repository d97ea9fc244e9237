import Foundation
import ObjectGraph
import XCTest

/// The example of docs/modelling.md, "Validation rules", as written there (its class nested
/// here: this target has a `Member` of its own), run against a real store.
final class ValidationRulesGuideTests: StoreTestCase {
    final class Member: ManagedObject {
        @Attribute(.range(0...150)) var age: Int16 = 0
        @Attribute(.range(-1.5...99.5)) var score: Double = 0
        @Attribute(.range(Decimal(1)...)) var fee: Decimal? = nil          // a minimum only
        @Attribute(.range(...Date(timeIntervalSinceReferenceDate: 788_918_400))) var joined: Date? = nil
        @Attribute([.length(1...8), .pattern("[A-Z][a-z]*")]) var name: String = "Ann"
    }

    func testTheValidationRulesExample() throws {
        let context = try makeContainer([Member.self]).viewContext
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        let member = Member(context: context)
        member.age = 151
        member.name = "ann"
        do {
            try context.save()
        } catch let error as ValidationError {
            for problem in error.problems {
                print(problem.key ?? "-", problem.rule?.name ?? "-", problem.rule?.coreDataCode ?? 0, problem.value ?? "-")
                // age numberTooLarge 1610 151
                // name stringPatternMatching 1680 "ann"
            }
        }

        XCTAssertEqual(printed.sorted(), ["age numberTooLarge 1610 151", "name stringPatternMatching 1680 \"ann\""])
        XCTAssertTrue(context.hasChanges)
        member.age = 150
        member.name = "Ann"
        XCTAssertNoThrow(try context.save())
    }
}
