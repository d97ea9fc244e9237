import Foundation
import ObjectGraph
import XCTest

/// A `validateFor...` override can report several problems at once with `ValidationError`.
final class ValidationErrorTests: StoreTestCase {
    final class Booking: ManagedObject {
        @Attribute var guests: Int = 0
        @Attribute var nights: Int = 0

        override func validateForInsert() throws {
            try super.validateForInsert()
            var problems: [ValidationError.Problem] = []
            if guests < 1 { problems.append(.init(self, key: "guests", "at least one guest")) }
            if nights < 1 { problems.append(.init(self, key: "nights", "at least one night")) }
            if !problems.isEmpty { throw ValidationError(problems: problems) }
        }
    }

    func testAnOverrideCanReportSeveralProblemsAndAllAreKept() throws {
        let container = try PersistentContainer(name: "Bookings", entities: [Booking.self], storeURL: storeURL)
        let booking = Booking(context: container.viewContext)
        XCTAssertThrowsError(try container.viewContext.save()) { error in
            let validation = error as? ValidationError
            XCTAssertEqual(Set(validation?.problems.compactMap(\.key) ?? []), ["guests", "nights"], "\(error)")
        }
        XCTAssertTrue(booking.objectID.isTemporaryID, "nothing was saved")
        booking.guests = 2
        booking.nights = 3
        try container.viewContext.save()
        XCTAssertFalse(booking.objectID.isTemporaryID)
    }
}
