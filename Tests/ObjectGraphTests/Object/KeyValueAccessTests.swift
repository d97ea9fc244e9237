import Foundation
import ObjectGraph
import XCTest

final class KeyValueAccessTests: StoreTestCase {
    func testValueForKeyReadsAttributesAndRelationships() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        let john = Employee(context: context)
        john.firstName = "John"
        john.age = 42
        john.department = sales

        XCTAssertEqual(try john.checkedValue(forKey: "firstName") as? String, "John")
        XCTAssertEqual(try john.checkedValue(forKey: "age") as? Int, 42)
        XCTAssertNil(try john.checkedValue(forKey: "hired"))
        XCTAssertTrue(try john.checkedValue(forKey: "department") as? ManagedObject === sales)
        XCTAssertEqual(try sales.checkedValue(forKey: "employees") as? Set<ManagedObject>, [john])
    }

    func testSetValueForKeyWritesAttributesAndRelationshipsWithTheirInverses() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        let john = Employee(context: context)
        try john.setValue("John", forKey: "firstName")
        try john.setValue(42, forKey: "age")
        try john.setValue(Date(timeIntervalSinceReferenceDate: 5), forKey: "hired")
        try john.setValue(sales, forKey: "department")
        XCTAssertEqual(john.firstName, "John")
        XCTAssertEqual(john.age, 42)
        XCTAssertEqual(john.hired, Date(timeIntervalSinceReferenceDate: 5))
        XCTAssertEqual(sales.employees, [john], "the inverse is maintained")
        try john.setValue(nil, forKey: "hired")
        XCTAssertNil(john.hired)
        try sales.setValue(Set<ManagedObject>(), forKey: "employees")
        XCTAssertNil(john.department)

        try context.save()
        let reopened = try makeContainer(Models.company)
        let fetched = try XCTUnwrap(reopened.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Employee")).first)
        XCTAssertEqual(try fetched.checkedValue(forKey: "firstName") as? String, "John")
    }

    func testAnUnknownKeyThrowsAKeyValueErrorNamingTheEntityAndTheKey() throws {
        let container = try makeContainer(Models.company)
        let john = Employee(context: container.viewContext)
        XCTAssertThrowsError(try john.checkedValue(forKey: "nickname")) { error in
            let error = error as? KeyValueError
            XCTAssertEqual(error?.code, .unknownKey)
            XCTAssertEqual(error?.entity, "Employee")
            XCTAssertEqual(error?.key, "nickname")
        }
        XCTAssertThrowsError(try john.setValue("x", forKey: "nickname")) { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .unknownKey)
        }
        XCTAssertThrowsError(try john.checkedValue(forKey: "fullName"), "a plain Swift property is not an attribute")
    }

    func testAValueOfTheWrongTypeThrowsAndLeavesTheObjectUnchanged() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let john = Employee(context: context)
        john.firstName = "John"
        try context.save()

        XCTAssertThrowsError(try john.setValue(42, forKey: "firstName")) { error in
            let error = error as? KeyValueError
            XCTAssertEqual(error?.code, .typeMismatch)
            XCTAssertEqual(error?.key, "firstName")
        }
        XCTAssertThrowsError(try john.setValue("old", forKey: "age")) { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .typeMismatch)
        }
        XCTAssertThrowsError(try john.setValue(nil, forKey: "firstName"), "nil for a non-optional attribute") { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .typeMismatch)
        }
        let other = Employee(context: context)
        XCTAssertThrowsError(try john.setValue(other, forKey: "department"), "an Employee is not a Department") { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .typeMismatch)
        }
        XCTAssertEqual(john.firstName, "John")
        XCTAssertNil(john.department)
        XCTAssertFalse(john.hasChanges)
    }

    func testAFetchRequestByEntityNameReturnsManagedObjectsOfTheEntitysClass() throws {
        do {
            let container = try makeContainer(Models.company)
            Employee(context: container.viewContext).firstName = "Plain"
            Manager(context: container.viewContext).firstName = "Boss"
            try container.viewContext.save()
        }
        let container = try makeContainer(Models.company)
        var request = FetchRequest<ManagedObject>(entityName: "Employee")
        request.sortDescriptors = [SortKey("firstName")]
        let objects = try container.viewContext.fetch(request)
        XCTAssertEqual(try objects.map { try $0.checkedValue(forKey: "firstName") as? String }, ["Boss", "Plain"])
        XCTAssertTrue(objects[0] is Manager)
        XCTAssertEqual(objects[0].entity.name, "Manager")
        XCTAssertEqual(try container.viewContext.count(for: request), 2)

        let managers = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Manager"))
        XCTAssertEqual(managers.count, 1)
        XCTAssertThrowsError(try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Nope"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownEntity)
        }
    }

    func testInsertNewObjectByEntityNameMakesTheEntitysClass() throws {
        let container = try makeContainer(Models.company)
        let object = try container.viewContext.insertNewObject(forEntityName: "Manager")
        XCTAssertTrue(object is Manager)
        try object.setValue(4, forKey: "level")
        XCTAssertEqual((object as? Manager)?.level, 4)
        XCTAssertThrowsError(try container.viewContext.insertNewObject(forEntityName: "Nope"))
    }
}
