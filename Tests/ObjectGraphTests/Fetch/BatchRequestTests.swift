import Foundation
import ObjectGraph
import XCTest

/// A note whose save can run code in the middle (after its context's last merge).
final class BatchRaceNote: ManagedObject {
    @Attribute var text: String = ""
    var beforeSave: (() -> Void)?

    override func willSave() {
        super.willSave()
        let hook = beforeSave
        beforeSave = nil
        hook?()
    }
}

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

    // MARK: Without a predicate: whole entities, no row read

    func testDeleteAllMarksRegisteredObjectsOfEveryContextDeletedWithoutReadingRows() throws {
        let company = try seedCompany()
        let employees: [QEmployee] = [company.john, company.jane, company.emile, company.ana, company.bob, company.mary, company.wu]
        let newcomer = QEmployee(context: context)            // unsaved: a temporary ID, never affected
        newcomer.firstName = "New"
        let background = container.newBackgroundContext()
        let (bobID, johnID, researchID) = (company.bob.objectID, company.john.objectID, company.research.objectID)
        let (backgroundBob, backgroundJohn, backgroundResearch) = try background.performAndWait {
            (try background.existingObject(with: bobID), background.object(with: johnID), try background.existingObject(with: researchID) as! QDepartment)
        }
        XCTAssertEqual(background.performAndWait { backgroundResearch.employees.count }, 1)
        XCTAssertTrue(background.performAndWait { backgroundJohn.isFault })
        var announced = Set<ObjectID>()
        context.addObserver(for: .objectsDidChange) { announced.formUnion($0.deleted) }
        startRecording()
        let result = try context.execute(BatchDeleteRequest(QEmployee.self))
        XCTAssertEqual(result.count, 7)
        XCTAssertEqual(result.objectIDs, [], "the default result type lists no IDs")
        XCTAssertEqual(result.cascadedObjectIDs, [])
        XCTAssertEqual(Set(result.nullifiedObjectIDs), Set([company.sales, company.etudes, company.research, company.apollo, company.zeus].map(\.objectID)))
        XCTAssertFalse(recorder.statements.contains { $0.contains("og_batch_keys") }, "no temporary table: \(recorder.statements)")
        XCTAssertTrue(recorder.statements.contains { $0.hasPrefix("DELETE FROM ZQEMPLOYEE") && !$0.contains("Z_PK IN") }, "\(recorder.statements)")
        XCTAssertEqual(recorder.statements.filter { $0.hasPrefix("BEGIN") }.count, 1, "one transaction")

        for employee in employees {
            XCTAssertTrue(employee.isDeleted, employee.firstName)
            XCTAssertNil(employee.managedObjectContext, employee.firstName)
        }
        XCTAssertEqual(announced, Set(employees.map(\.objectID)), "observers hear the registered objects deleted")
        XCTAssertTrue(newcomer.isInserted)
        XCTAssertTrue(newcomer.managedObjectContext === context)
        XCTAssertEqual(context.insertedObjects, [newcomer])
        XCTAssertTrue(context.registeredObjects.allSatisfy { !($0 is QEmployee) || $0 === newcomer })
        XCTAssertEqual(company.sales.employees.count, 0, "loaded to-many sets drop the deleted members")
        XCTAssertEqual(company.apollo.members.count, 0)
        XCTAssertEqual(try storeCount(QEmployee.self), 0)
        XCTAssertEqual(try storeCount(QDepartment.self), 3)
        XCTAssertEqual(try context.count(for: FetchRequest<QEmployee>()), 1, "the unsaved newcomer")
        background.performAndWait {
            _ = background.registeredObjects          // an entry point: merges the batch
            XCTAssertTrue(backgroundBob.isDeleted)
            XCTAssertTrue(backgroundJohn.isDeleted, "a registered fault too")
            XCTAssertNil(backgroundJohn.managedObjectContext)
            XCTAssertEqual(backgroundResearch.employees.count, 0)
            XCTAssertFalse(background.registeredObjects.contains { $0 is QEmployee })
        }
        try context.save()
        XCTAssertEqual(try storeCount(QEmployee.self), 1)
    }

    func testAnObjectSavedAfterADeleteAllSurvivesAMergeThatComesLater() throws {
        // Context B saves a new note after A's delete committed but before B merges it: the
        // delete (told as "every note up to the last key") must not take B's note along.
        let url = directory.appendingPathComponent("Race.sqlite")
        let notes = try PersistentContainer(name: "Race", entities: [BatchRaceNote.self], storeURL: url)
        let a = notes.viewContext
        for text in ["one", "two"] { BatchRaceNote(context: a).text = text }
        try a.save()
        // A row written by other software, with a key beyond Z_PRIMARYKEY.Z_MAX (2).
        _ = try SQLiteFile(url, readOnly: false).rows("INSERT INTO ZBATCHRACENOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (10, 1, 1, 'three')")
        let b = ManagedObjectContext(coordinator: notes.persistentStoreCoordinator, name: "B")
        let old = try b.fetch(FetchRequest<BatchRaceNote>())
        XCTAssertEqual(old.map(\.text).sorted(), ["one", "three", "two"])
        let fresh = BatchRaceNote(context: b)
        fresh.text = "four"
        var deleted = -1
        fresh.beforeSave = {                          // inside B's save, after its last merge
            deleted = (try? a.execute(BatchDeleteRequest(BatchRaceNote.self)).count) ?? -2
        }
        try b.save()
        XCTAssertEqual(deleted, 3, "A deleted the three saved notes before B's insert")
        XCTAssertEqual(fresh.objectID.primaryKey, 11, "above every key the delete covered")
        XCTAssertEqual(b.registeredObjects.count, 1, "B merged the delete now")
        XCTAssertTrue(old.allSatisfy(\.isDeleted))
        XCTAssertFalse(fresh.isDeleted)
        XCTAssertTrue(fresh.managedObjectContext === b)
        XCTAssertEqual(fresh.text, "four")
        XCTAssertEqual(try a.fetch(FetchRequest<BatchRaceNote>()).map(\.text), ["four"])
        XCTAssertEqual(try b.fetch(FetchRequest<BatchRaceNote>()).map(\.text), ["four"])
    }

    func testDeleteAllOfASubEntityOrWithoutSubEntities() throws {
        let company = try seedCompany()
        XCTAssertEqual(company.mary.reports.count, 3)
        var plain = BatchDeleteRequest(QEmployee.self)
        plain.includesSubentities = false
        plain.resultType = .objectIDs
        let result = try context.execute(plain)
        XCTAssertEqual(result.count, 5)
        XCTAssertEqual(Set(result.objectIDs), Set([company.john, company.jane, company.emile, company.ana, company.bob].map(\.objectID)))
        XCTAssertTrue(company.john.isDeleted && company.ana.isDeleted)
        XCTAssertFalse(company.mary.isDeleted || company.wu.isDeleted, "managers are a sub-entity")
        XCTAssertEqual(company.mary.reports.count, 0, "the nullified inverse reloads")
        XCTAssertEqual(company.sales.employees.map(\.firstName), ["Mary"])
        XCTAssertEqual(company.apollo.members.map(\.firstName), ["Mary"])
        XCTAssertEqual(try storeCount(QEmployee.self), 2)

        // Managers only: the to-one of their (here re-added) reports is cleared in SQL.
        let nina = QEmployee(context: context)
        nina.firstName = "Nina"
        nina.manager = company.wu
        try context.save()
        let background = container.newBackgroundContext()
        let ninaID = nina.objectID
        let backgroundNina = try background.performAndWait { try background.existingObject(with: ninaID) as! QEmployee }
        let managers = try context.execute(BatchDeleteRequest(QManager.self))
        XCTAssertEqual(managers.count, 2)
        XCTAssertEqual(managers.nullifiedObjectIDs.filter { $0.entityName == "QEmployee" }, [ninaID])
        XCTAssertTrue(company.mary.isDeleted && company.wu.isDeleted)
        XCTAssertFalse(nina.isDeleted)
        XCTAssertNil(nina.manager)
        XCTAssertEqual(company.sales.employees.count, 0)
        background.performAndWait { XCTAssertNil(backgroundNina.manager) }
        let reopened = try makeContainer().viewContext
        XCTAssertNil(try reopened.fetch(FetchRequest<QEmployee>()).first?.manager)
        XCTAssertEqual(try storeCount(QEmployee.self), 1)
    }

    func testDeleteAllCascadesNullifiesAndDeniesLikeWithAPredicate() throws {
        let company = try seedCompany()
        let cascaded = [company.john, company.jane, company.emile, company.bob, company.mary]
        let background = container.newBackgroundContext()
        let (apolloID, johnID) = (company.apollo.objectID, company.john.objectID)
        let (backgroundApollo, backgroundJohn) = try background.performAndWait {
            (try background.existingObject(with: apolloID) as! QProject, try background.existingObject(with: johnID))
        }
        XCTAssertEqual(background.performAndWait { backgroundApollo.members.count }, 3)
        let result = try context.execute(BatchDeleteRequest(QDepartment.self))
        XCTAssertEqual(result.count, 3)
        XCTAssertEqual(Set(result.cascadedObjectIDs), Set(cascaded.map(\.objectID)))
        XCTAssertEqual(result.nullifiedObjectIDs, [company.apollo.objectID])
        XCTAssertTrue(cascaded.allSatisfy(\.isDeleted))
        XCTAssertTrue(company.sales.isDeleted && company.research.isDeleted)
        XCTAssertFalse(company.ana.isDeleted || company.wu.isDeleted)
        XCTAssertEqual(company.apollo.members.count, 0)
        XCTAssertEqual(company.zeus.members.map(\.firstName), ["Ana"])
        XCTAssertEqual(company.wu.reports.map(\.firstName), ["Ana"])
        XCTAssertEqual(try storeCount(QEmployee.self), 2)
        XCTAssertEqual(try storeCount(QDepartment.self), 0)
        background.performAndWait {
            _ = background.registeredObjects
            XCTAssertTrue(backgroundJohn.isDeleted)
            XCTAssertEqual(backgroundApollo.members.count, 0)
        }
        XCTAssertThrowsError(try context.execute(BatchDeleteRequest(QProject.self))) { error in
            XCTAssertEqual((error as? BatchRequestError)?.code, .denied, "Zeus still has Ana")
        }
        XCTAssertFalse(company.zeus.isDeleted || company.apollo.isDeleted)
        XCTAssertEqual(try storeCount(QProject.self), 2)
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

    func testAFaultOfAnObjectDeletedByDeleteAllTurnsOutDeletedInAnotherContext() throws {
        let company = try seedCompany()                 // the save put every row in the shared row cache
        let johnID = company.john.objectID
        let untouched = container.newBackgroundContext()
        try context.execute(BatchDeleteRequest(QEmployee.self))
        try untouched.performAndWait {
            XCTAssertThrowsError(try untouched.existingObject(with: johnID), "not served from the row cache")
            let fault = untouched.object(with: johnID) as! QEmployee
            XCTAssertEqual(fault.firstName, "", "fires, finds no row")
            XCTAssertTrue(fault.isDeleted)
            XCTAssertNil(fault.managedObjectContext)
        }
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
