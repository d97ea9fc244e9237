import Foundation
import ObjectGraph
import XCTest

final class InheritanceTests: StoreTestCase {
    func testTheModelFollowsTheClassHierarchy() throws {
        let model = try ManagedObjectModel(entities: [Manager.self, Department.self])
        let manager = try XCTUnwrap(model.entitiesByName["Manager"])
        let employee = try XCTUnwrap(model.entitiesByName["Employee"], "a superclass becomes an entity too")
        XCTAssertTrue(manager.superentity === employee)
        XCTAssertEqual(employee.subentities.map(\.name), ["Manager"])
        XCTAssertTrue(manager.rootEntity === employee)
        XCTAssertTrue(manager.isKind(of: employee))
        XCTAssertFalse(employee.isKind(of: manager))
        XCTAssertNotNil(manager.property(named: "firstName"), "inherited attribute")
        XCTAssertNotNil(manager.property(named: "department"), "inherited relationship")
        XCTAssertNil(employee.property(named: "level"))
        XCTAssertEqual(model.entities.map(\.name), ["Department", "Employee", "Manager"])
    }

    func testASubEntityKeepsItsOwnAndInheritedValuesAfterReopen() throws {
        let hired = Date(timeIntervalSinceReferenceDate: 700_000_000)
        do {
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let sales = Department(context: context)
            sales.name = "Sales"
            let boss = Manager(context: context)
            boss.firstName = "Grace"
            boss.hired = hired
            boss.level = 7
            boss.department = sales
            try context.save()
        }
        let reopened = try makeContainer(Models.company)
        let managers = try fetchAll(Manager.self, in: reopened.viewContext)
        XCTAssertEqual(managers.count, 1)
        let boss = try XCTUnwrap(managers.first)
        XCTAssertEqual(boss.firstName, "Grace")
        XCTAssertEqual(boss.hired, hired)
        XCTAssertEqual(boss.level, 7)
        XCTAssertEqual(boss.department?.name, "Sales")
        XCTAssertEqual(boss.entity.name, "Manager")
        let department = try XCTUnwrap(boss.department)
        XCTAssertTrue(department.employees.first is Manager, "a to-many holds sub-entity instances of their own class")
    }

    func testAFaultForASubEntityRowHasTheSubEntitysClass() throws {
        let uri: URL
        do {
            let container = try makeContainer(Models.company)
            let boss = Manager(context: container.viewContext)
            boss.level = 2
            try container.viewContext.save()
            uri = boss.objectID.uriRepresentation
        }
        let container = try makeContainer(Models.company)
        let ids = try container.viewContext.fetchObjectIDs(FetchRequest<Employee>())
        XCTAssertEqual(ids.map(\.entityName), ["Manager"], "an Employee fetch of IDs knows each row's entity from Z_ENT")
        let fault = container.viewContext.object(with: ids[0])
        XCTAssertTrue(fault.isFault)
        XCTAssertEqual((fault as? Manager)?.level, 2)
        XCTAssertEqual(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri), ids[0])
    }

    func testAToOneToAnEntityWithSubEntitiesRemembersTheDestinationsEntity() throws {
        do {
            let container = try makeContainer(Models.vehicles)
            let context = container.viewContext
            let garage = Garage(context: context)
            garage.city = "Oslo"
            let truck = Truck(context: context)
            truck.name = "Big"
            truck.payload = 12.5
            truck.garage = garage
            let car = Vehicle(context: context)
            car.name = "Small"
            car.garage = garage
            garage.favourite = truck
            try context.save()
        }
        let file = try SQLiteFile(storeURL)
        XCTAssertTrue(try file.columns(of: "ZGARAGE").contains("Z2_FAVOURITE"), "the destination's Z_ENT column Z<n>_<REL>")
        XCTAssertEqual(try file.rows("SELECT Z2_FAVOURITE FROM ZGARAGE"), [[.integer(3)]], "Truck is entity 3")
        XCTAssertEqual(try file.rows("SELECT ZNAME, Z_ENT FROM ZVEHICLE ORDER BY ZNAME"),
                       [[.text("Big"), .integer(3)], [.text("Small"), .integer(2)]])

        let reopened = try makeContainer(Models.vehicles)
        let garage = try XCTUnwrap(fetchAll(Garage.self, in: reopened.viewContext).first)
        let favourite = try XCTUnwrap(garage.favourite)
        XCTAssertTrue(favourite.isFault)
        XCTAssertTrue(favourite is Truck, "the fault has the sub-entity's class before it fires")
        XCTAssertEqual((favourite as? Truck)?.payload, 12.5)
        XCTAssertEqual(Set(garage.vehicles.map(\.name)), ["Big", "Small"])
        XCTAssertEqual(garage.vehicles.filter { $0 is Truck }.count, 1)

        var request = FetchRequest<Vehicle>()
        request.includesSubentities = false
        XCTAssertEqual(try reopened.viewContext.fetch(request).map(\.name), ["Small"])
    }

    func testCascadeReachesSubEntityObjects() throws {
        let container = try makeContainer(Models.vehicles)
        let context = container.viewContext
        let garage = Garage(context: context)
        let truck = Truck(context: context)
        truck.garage = garage
        try context.save()
        context.delete(garage)
        XCTAssertTrue(truck.isDeleted)
        try context.save()
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZVEHICLE"), .integer(0))
    }
}
