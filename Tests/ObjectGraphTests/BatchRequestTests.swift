import Foundation
import ObjectGraph
import XCTest

/// Batch deletes and updates run as SQL in one transaction, follow delete rules, and bring
/// every context's registered objects up to date.
final class BatchRequestTests: QueryTestCase {
    private func storeCount<T: ManagedObject>(_ type: T.Type, _ format: String = "TRUEPREDICATE") throws -> Int {
        var request = FetchRequest<T>(predicate: try FetchPredicate(format))
        request.includesPendingChanges = false
        return try makeContainer().viewContext.count(for: request)
    }

    func testBatchDeleteRemovesTheSelectedRowsAndMarksRegisteredObjectsDeleted() throws {
        let company = try seedCompany()
        let background = container.newBackgroundContext()
        let bobID = company.bob.objectID
        let backgroundBob = try background.performAndWait { try background.existingObject(with: bobID) }
        startRecording()
        var request = BatchDeleteRequest(QEmployee.self, predicate: try FetchPredicate("age > %@ AND projects.@count == 0", 50))
        request.resultType = .objectIDs
        let result = try context.execute(request)
        XCTAssertEqual(result.count, 1)
        XCTAssertEqual(result.objectIDs, [bobID])
        XCTAssertEqual(recorder.statements.filter { $0.hasPrefix("BEGIN") }.count, 1, "one transaction")
        XCTAssertTrue(company.bob.isDeleted)
        XCTAssertNil(company.bob.managedObjectContext)
        XCTAssertEqual(try storeCount(QEmployee.self), 6)
        XCTAssertEqual(try context.count(for: FetchRequest<QEmployee>()), 6)
        background.performAndWait {
            _ = background.registeredObjects          // an entry point: merges the batch
            XCTAssertTrue(backgroundBob.isDeleted)
        }
        XCTAssertEqual(company.research.employees.count, 0, "the nullified inverse reloads")
    }

    func testBatchDeleteCascadesAndNullifiesLikeTheContextDoes() throws {
        let company = try seedCompany()
        let salesPeople = Set([company.john, company.jane, company.mary].map(\.objectID))
        var request = BatchDeleteRequest(QDepartment.self, predicate: try FetchPredicate("name == 'Sales'"))
        request.resultType = .objectIDs
        let result = try context.execute(request)
        XCTAssertEqual(result.objectIDs, [company.sales.objectID])
        XCTAssertEqual(Set(result.cascadedObjectIDs), salesPeople)
        XCTAssertTrue(company.john.isDeleted && company.mary.isDeleted && company.sales.isDeleted)
        XCTAssertEqual(try storeCount(QEmployee.self), 4)
        XCTAssertEqual(try storeCount(QDepartment.self), 2)
        let reopened = try makeContainer()
        let fresh = reopened.viewContext
        XCTAssertEqual(try fresh.fetch(FetchRequest<QProject>(predicate: try FetchPredicate("title == 'Apollo'"))).first?.members.map(\.firstName),
                       ["Émile"], "join rows of deleted members are gone")
        let emile = try XCTUnwrap(try fresh.fetch(FetchRequest<QEmployee>(predicate: try FetchPredicate("firstName == 'Émile'"))).first)
        XCTAssertNil(emile.manager, "the to-one to a deleted manager was nullified by QManager.reports' rule")
    }

    func testResultTypesListIDsOnlyWhenAsked() throws {
        let company = try seedCompany()
        func delete(_ entity: QEmployee.Type, _ format: String?, _ type: BatchDeleteRequest.ResultType) throws -> BatchResult {
            var request = BatchDeleteRequest(entity, predicate: try format.map { try FetchPredicate($0) })
            request.resultType = type
            return try context.execute(request)
        }
        let bob = try delete(QEmployee.self, "firstName == 'Bob'", .count)
        XCTAssertEqual(bob.count, 1)
        XCTAssertEqual(bob.objectIDs, [])
        let ana = try delete(QEmployee.self, "firstName == 'Ana'", .statusOnly)
        XCTAssertEqual(ana.count, 1)
        XCTAssertEqual(ana.objectIDs, [])
        let managers = try delete(QManager.self, "TRUEPREDICATE", .objectIDs)
        XCTAssertEqual(Set(managers.objectIDs), [company.mary.objectID, company.wu.objectID])
        XCTAssertEqual(managers.count, 2)
        let rest = try delete(QEmployee.self, nil, .count)
        XCTAssertEqual(rest.count, 3)
        XCTAssertEqual(rest.objectIDs, [])
        XCTAssertTrue([company.bob, company.ana, company.mary, company.wu, company.john].allSatisfy(\.isDeleted))
        let none = try delete(QEmployee.self, nil, .objectIDs)
        XCTAssertEqual(none.count, 0)
        XCTAssertEqual(none.objectIDs, [])
    }

    func testADenyRuleRefusesTheWholeBatchAndChangesNothing() throws {
        let company = try seedCompany()
        XCTAssertThrowsError(try context.execute(BatchDeleteRequest(QProject.self))) { error in
            XCTAssertEqual((error as? BatchRequestError)?.code, .denied)
        }
        XCTAssertFalse(company.apollo.isDeleted)
        XCTAssertEqual(try storeCount(QProject.self), 2)
        XCTAssertEqual(try storeCount(QEmployee.self), 7)
        company.zeus.members = []
        try context.save()
        let result = try context.execute(BatchDeleteRequest(QProject.self, predicate: try FetchPredicate("title == 'Zeus'")))
        XCTAssertEqual(result.count, 1)
        XCTAssertTrue(company.zeus.isDeleted)
    }

    func testBatchUpdateSetsValuesAndRefreshesRegisteredObjects() throws {
        let company = try seedCompany()
        company.jane.nickname = "unsaved"           // an unsaved edit is kept
        let background = container.newBackgroundContext()
        let johnID = company.john.objectID
        let backgroundJohn = try background.performAndWait { try background.existingObject(with: johnID) as! QEmployee }
        startRecording()
        let result = try context.execute(BatchUpdateRequest(QEmployee.self, predicate: try FetchPredicate("department.name == %@", "Sales"),
                                                            propertiesToUpdate: ["salary": 7000.0, "nickname": nil, "hired": Self.date(2022)]))
        XCTAssertEqual(Set(result.objectIDs), Set([company.john, company.jane, company.mary].map(\.objectID)))
        XCTAssertEqual(recorder.queries.filter { $0.hasPrefix("UPDATE") }.count, 1, "\(recorder.queries)")
        XCTAssertEqual(company.john.salary, 7000)
        XCTAssertEqual(company.mary.hired, Self.date(2022))
        XCTAssertNil(company.mary.nickname)
        XCTAssertEqual(company.jane.nickname, "unsaved")
        XCTAssertEqual(company.emile.salary, 4000)
        XCTAssertEqual(try storeCount(QEmployee.self, "salary == 7000"), 4)   // Bob earned 7000 already
        background.performAndWait {
            XCTAssertEqual(backgroundJohn.salary, 7000)
        }
        company.john.age = 43                        // John was refreshed: his edit saves without a conflict
        XCTAssertThrowsError(try context.save(), "Jane's unsaved edit meets the batch's new version")
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.save()
        XCTAssertEqual(try storeCount(QEmployee.self, "age == 43 AND salary == 7000"), 1)
        XCTAssertEqual(try storeCount(QEmployee.self, "nickname == 'unsaved' AND salary == 7000"), 1)
    }

    func testBatchUpdateRefusesUnknownKeysAndWrongValues() throws {
        try seedCompany()
        let cases: [[String: (any Sendable)?]] = [["shoeSize": 3], ["age": "old"], ["hired": 3], ["firstName": nil], ["projects": 1], ["scratch": "x"]]
        for update in cases {
            XCTAssertThrowsError(try context.execute(BatchUpdateRequest(QEmployee.self, propertiesToUpdate: update)), "\(update)") { error in
                XCTAssertEqual((error as? BatchRequestError)?.code, .invalidUpdate, "\(update)")
            }
        }
        XCTAssertEqual(try storeCount(QEmployee.self, "firstName == nil"), 0)
    }
}
