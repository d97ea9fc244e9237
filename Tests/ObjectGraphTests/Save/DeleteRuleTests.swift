import Foundation
import ObjectGraph
import XCTest

final class DeleteRuleTests: StoreTestCase {
    func testNullifyRemovesTheDeletedObjectFromTheInverseAndTheStore() throws {
        do {
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let sales = Department(context: context)
            sales.name = "Sales"
            let john = Employee(context: context)
            john.firstName = "John"
            john.department = sales
            let jane = Employee(context: context)
            jane.firstName = "Jane"
            jane.department = sales
            try context.save()

            context.delete(john)
            XCTAssertEqual(sales.employees, [jane], "nullify removes john from the department at once")
            XCTAssertTrue(john.isDeleted)
            XCTAssertFalse(sales.isDeleted)
            try context.save()
        }
        let reopened = try makeContainer(Models.company)
        let sales = try XCTUnwrap(fetchAll(Department.self, in: reopened.viewContext).first)
        XCTAssertEqual(sales.employees.map(\.firstName), ["Jane"])
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<Employee>()), 1)
    }

    func testCascadeDeletesTheDestinationsAndTheirRows() throws {
        do {
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let sales = Department(context: context)
            let other = Department(context: context)
            for index in 0..<3 {
                let employee = Employee(context: context)
                employee.firstName = "E\(index)"
                employee.department = sales
            }
            let stays = Employee(context: context)
            stays.department = other
            try context.save()
        }
        do {
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let departments = try fetchAll(Department.self, in: context)
            let sales = try XCTUnwrap(departments.first { $0.employees.count == 3 })
            let members = sales.employees
            context.delete(sales)
            XCTAssertTrue(members.allSatisfy(\.isDeleted), "cascade deletes every employee of the department")
            XCTAssertEqual(context.deletedObjects.count, 4)
            try context.save()
        }
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZDEPARTMENT"), .integer(1))
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(1))
    }

    func testDenyRefusesTheSaveWhileTheRelationshipIsNotEmptyAndAllowsItOnceEmptied() throws {
        let container = try makeContainer(Models.books)
        let context = container.viewContext
        let author = Author(context: context)
        author.name = "Le Guin"
        let book = Book(context: context)
        book.title = "The Dispossessed"
        book.author = author
        try context.save()
        let before = try SQLiteFile.dump(storeURL)

        context.delete(author)
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("expected ValidationError, got \(error)") }
            XCTAssertEqual(validation.problems.count, 1)
            XCTAssertEqual(validation.problems.first?.objectID, author.objectID)
            XCTAssertEqual(validation.problems.first?.key, "books")
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "a refused delete writes nothing")
        XCTAssertTrue(author.isDeleted, "the delete is still pending")
        XCTAssertEqual(context.deletedObjects, [author])

        // Fix: delete the book too, and retry.
        context.delete(book)
        try context.save()
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZAUTHOR"), .integer(0))
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZBOOK"), .integer(0))
    }

    func testNoActionLeavesTheDestinationPointingAtTheDeletedRow() throws {
        let container = try makeContainer(Models.books)
        let context = container.viewContext
        let library = Library(context: context)
        library.name = "Central"
        let book = Book(context: context)
        book.title = "Dune"
        book.library = library
        try context.save()
        let libraryKey = try XCTUnwrap(library.objectID.primaryKey)

        context.delete(library)
        XCTAssertFalse(book.hasChanges, "no action: the book is not touched")
        XCTAssertEqual(context.updatedObjects, [])
        try context.save()

        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZLIBRARY"), .integer(0))
        XCTAssertEqual(try file.rows("SELECT ZLIBRARY FROM ZBOOK"), [[.integer(libraryKey)]],
                       "the book's foreign key still holds the deleted library's key")
    }

    func testDeletingAnUnsavedObjectSimplyForgetsIt() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        let temp = Employee(context: context)
        temp.department = sales
        context.delete(temp)
        XCTAssertEqual(context.insertedObjects, [sales])
        XCTAssertEqual(context.deletedObjects, [])
        XCTAssertEqual(sales.employees, [])
        try context.save()
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT count(*) FROM ZEMPLOYEE"), .integer(0))
    }
}
