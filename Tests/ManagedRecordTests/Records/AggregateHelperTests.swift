import Foundation
import ManagedRecord
import XCTest

/// The class-level aggregates answer in the attribute's own type, or throw a typed error.
final class AggregateHelperTests: RecordTestCase {
    private func seedPeople() throws {
        for (name, age) in [("Ann", 31), ("Bob", 45), ("Cy", 20)] {
            let person = Person.newEntity()
            person.firstName = name
            person.age = age
        }
        try Person.commit()
    }

    func testTheUntypedFormKeepsWorkingAsADouble() throws {
        try seedPeople()
        let meanAge = try Person.aggregate(.average, of: "age")        // Double?, as in API.md
        XCTAssertEqual(meanAge ?? 0, 32, accuracy: 1e-12)
        XCTAssertEqual(try Person.aggregate(.max, of: "age"), 45)
        XCTAssertThrowsError(try Person.aggregate(.max, of: "firstName")) { error in
            XCTAssertTrue("\(error)".contains("as: String.self"), "\(error)")
        }
    }

    func testTheTypedFormReturnsTheAttributesOwnType() throws {
        try seedPeople()
        let oldest: Int? = try Person.aggregate(.max, of: "age", as: Int.self)
        XCTAssertEqual(oldest, 45)
        XCTAssertEqual(try Person.aggregate(.sum, of: "age", as: Int.self, where: "age > %@", 25), 76)
        XCTAssertEqual(try Person.aggregate(.min, of: "firstName", as: String.self), "Ann")
        XCTAssertNil(try Person.aggregate(.max, of: "age", as: Int.self, where: "age > %@", 99))
    }

    func testAWrongTypeIsATypedErrorNamingTheAttributeAndBothTypes() throws {
        try seedPeople()
        XCTAssertThrowsError(try Person.aggregate(.max, of: "age", as: Date.self)) { error in
            let error = error as? FetchPredicateError
            XCTAssertEqual(error?.code, .typeMismatch)
            XCTAssertEqual(error?.key, "age")
            XCTAssertTrue((error?.message ?? "").contains("Integer 64") && (error?.message ?? "").contains("Date"), "\(String(describing: error))")
        }
        XCTAssertThrowsError(try Person.distinctValues(of: "age", as: String.self)) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .typeMismatch)
        }
    }
}
