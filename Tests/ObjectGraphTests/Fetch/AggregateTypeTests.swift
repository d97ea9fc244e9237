import Foundation
import ObjectGraph
import XCTest

/// Aggregates and distinct values come back in the attribute's own type, or fail with a
/// typed error; never as a wrong number.
final class AggregateTypeTests: StoreTestCase {
    private let all = FetchRequest<Specimen>()

    /// 1,000 specimens with `amount` 0.1 (an exact sum of 100 that a Double sum misses),
    /// plus three with known integers, dates and amounts.
    private func seed(_ context: ManagedObjectContext) throws {
        for _ in 0..<1000 {
            let specimen = Specimen(context: context)
            specimen.amount = Decimal(string: "0.1")!
        }
        for (index, amount) in ["12.34", "-7.5", "1000000.01"].enumerated() {
            let specimen = Specimen(context: context)
            specimen.amount = Decimal(string: amount)!
            specimen.integer = [5, -3, 40][index]
            specimen.small = Int16([7, 2, 9][index])
            specimen.moment = Date(timeIntervalSinceReferenceDate: [100, 50_000, 7][index])
            specimen.text = ["b", "c", "a"][index]
        }
        try context.save()
    }

    func testTheUntypedFormRefusesDecimalsAndDatesInsteadOfAWrongNumber() throws {
        let container = try makeContainer(Models.specimen)
        let context = container.viewContext
        try seed(context)
        for function in [AggregateFunction.sum, .min, .max, .average] {
            XCTAssertThrowsError(try context.aggregate(function, of: "amount", for: all), "\(function) of a Decimal") { error in
                let error = error as? FetchPredicateError
                XCTAssertEqual(error?.code, .typeMismatch)
                XCTAssertEqual(error?.key, "amount")
                XCTAssertTrue(error?.message.contains("as: Decimal.self") ?? false, "\(String(describing: error))")
            }
        }
        for function in [AggregateFunction.min, .max] {
            XCTAssertThrowsError(try context.aggregate(function, of: "moment", for: all), "\(function) of a Date") { error in
                XCTAssertTrue((error as? FetchPredicateError)?.message.contains("as: Date.self") ?? false, "\(error)")
            }
            XCTAssertThrowsError(try context.aggregate(function, of: "text", for: all), "\(function) of a String")
        }
        XCTAssertEqual(try context.aggregate(.count, of: "amount", for: all), 1003, "a count is a number whatever the type")
        XCTAssertEqual(try context.aggregate(.max, of: "integer", for: all), 40, "integers still widen to Double")
    }

    func testTypedAggregatesReturnTheAttributesOwnTypeAndDecimalSumsAreExact() throws {
        let container = try makeContainer(Models.specimen)
        let context = container.viewContext
        try seed(context)
        XCTAssertEqual(try context.aggregate(.sum, of: "amount", as: Decimal.self, for: all), Decimal(string: "1000104.85"))
        XCTAssertEqual(try context.aggregate(.min, of: "amount", as: Decimal.self, for: all), Decimal(string: "-7.5"))
        XCTAssertEqual(try context.aggregate(.max, of: "amount", as: Decimal.self, for: all), Decimal(string: "1000000.01"))
        XCTAssertEqual(try context.aggregate(.average, of: "amount", as: Decimal.self, for: all),
                       Decimal(string: "1000104.85")! / 1003)
        XCTAssertEqual(try context.aggregate(.max, of: "moment", as: Date.self, for: all), Date(timeIntervalSinceReferenceDate: 50_000))
        XCTAssertEqual(try context.aggregate(.min, of: "moment", as: Date.self, for: all), Date(timeIntervalSinceReferenceDate: 0))
        XCTAssertEqual(try context.aggregate(.max, of: "integer", as: Int.self, for: all), 40)
        XCTAssertEqual(try context.aggregate(.min, of: "small", as: Int16.self, for: all), 0)
        XCTAssertEqual(try context.aggregate(.sum, of: "integer", as: Int.self, for: all), 42)
        XCTAssertEqual(try context.aggregate(.sum, of: "small", as: Int64.self, for: all), 18, "a sum may widen")
        XCTAssertEqual(try context.aggregate(.average, of: "integer", as: Double.self, for: all) ?? 0, 42.0 / 1003, accuracy: 1e-12)
        XCTAssertEqual(try context.aggregate(.max, of: "text", as: String.self, for: all), "c")
        XCTAssertEqual(try context.aggregate(.count, of: "amount", as: Int.self, for: all), 1003)
        let none = FetchRequest<Specimen>(predicate: .never)
        XCTAssertEqual(try context.aggregate(.sum, of: "amount", as: Decimal.self, for: none), 0)
        XCTAssertNil(try context.aggregate(.max, of: "amount", as: Decimal.self, for: none))

        var request = FetchRequest<Specimen>()
        request.propertiesToFetch = [.aggregate(.sum, of: "amount", as: "total"), .aggregate(.max, of: "amount", as: "top")]
        let row = try XCTUnwrap(try context.fetchDictionaries(request).first)
        XCTAssertEqual(row["total"] as? Decimal, Decimal(string: "1000104.85"), "\(row)")
        XCTAssertEqual(row["top"] as? Decimal, Decimal(string: "1000000.01"), "\(row)")
    }

    func testAWrongRequestedTypeIsATypedErrorNamingTheAttributeAndBothTypes() throws {
        let container = try makeContainer(Models.specimen)
        let context = container.viewContext
        try seed(context)
        XCTAssertThrowsError(try context.aggregate(.max, of: "integer", as: String.self, for: all)) { error in
            let error = error as? FetchPredicateError
            XCTAssertEqual(error?.code, .typeMismatch)
            XCTAssertEqual(error?.key, "integer")
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains("Integer 64") && message.contains("String"), message)
        }
        XCTAssertThrowsError(try context.aggregate(.sum, of: "amount", as: Double.self, for: all))
        XCTAssertThrowsError(try context.aggregate(.max, of: "moment", as: Double.self, for: all))
        XCTAssertThrowsError(try context.aggregate(.average, of: "integer", as: Int.self, for: all), "an average is a fraction")
        XCTAssertThrowsError(try context.distinctValues(of: "integer", as: String.self, for: all)) { error in
            let error = error as? FetchPredicateError
            XCTAssertEqual(error?.code, .typeMismatch)
            XCTAssertEqual(error?.key, "integer")
            XCTAssertTrue(error?.message.contains("String") ?? false)
        }
        XCTAssertThrowsError(try context.distinctValues(of: "integer", as: Int16.self, for: all),
                             "40 fits an Int16 but a distinct query cannot promise it: ask for the attribute's own width or wider") { _ in }
        XCTAssertEqual(try context.distinctValues(of: "integer", as: Int.self, for: all), [-3, 0, 5, 40])
        XCTAssertEqual(try context.distinctValues(of: "small", as: Int.self, for: all), [0, 2, 7, 9], "a wider integer is fine")
    }
}

extension AggregateTypeTests {
    /// 2^53 + 1 (and the sum 2^53 + 3) has no exact Double: the untyped form used to return 2^53 without a word.
    func testTheUntypedFormRefusesAnIntegerADoubleWouldRound() throws {
        let container = try makeContainer(Models.specimen)
        let context = container.viewContext
        let big: Int64 = (1 << 53) + 1
        for value in [big, 2] {
            let specimen = Specimen(context: context)
            specimen.large = value
        }
        try context.save()
        for function in [AggregateFunction.max, .sum] {
            XCTAssertThrowsError(try context.aggregate(function, of: "large", for: all), "\(function) of 2^53 + 1") { error in
                let error = error as? FetchPredicateError
                XCTAssertEqual(error?.code, .typeMismatch)
                XCTAssertEqual(error?.key, "large")
                XCTAssertTrue(error?.message.contains("as: Int64.self") ?? false, "\(String(describing: error))")
            }
        }
        XCTAssertEqual(try context.aggregate(.max, of: "large", as: Int64.self, for: all), big, "the typed form is exact")
        XCTAssertEqual(try context.aggregate(.min, of: "large", for: all), 2, "an integer a Double holds exactly still answers")
    }
}
