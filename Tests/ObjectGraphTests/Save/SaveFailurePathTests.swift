import Foundation
import ObjectGraph
import XCTest

// MARK: - Models for dangling references and willSave() changes

/// Points at cards through relationships without an inverse.
final class Shelf: ManagedObject {
    @Attribute var label: String = ""
    @Relationship var pinned: Card?
    @Relationship var cards: Set<Card>
}

final class Card: ManagedObject {
    @Attribute var title: String = ""
}

/// Logs itself once through an `AuditEntry` inserted in `willSave()`, and deletes itself
/// there when asked to.
final class AuditedNote: ManagedObject {
    @Attribute var text: String = ""
    @Attribute var logged: Bool = false
    @Attribute var discard: Bool = false
    var willSaveCalls = 0

    override func willSave() {
        super.willSave()
        willSaveCalls += 1
        guard let context = managedObjectContext, !isDeleted else { return }
        if !logged {
            logged = true
            let entry = AuditEntry(context: context)
            entry.note = text
        }
        if discard { context.delete(self) }
    }
}

/// Stamps itself in `willSave()`: runs for entries inserted by another object's `willSave()`.
final class AuditEntry: ManagedObject {
    @Attribute var note: String = ""
    @Attribute var stamped: Bool = false

    override func willSave() {
        super.willSave()
        if !stamped { stamped = true }
    }
}

/// Changes itself in every `willSave()`: a save can never settle.
final class Restless: ManagedObject {
    @Attribute var counter: Int = 0

    override func willSave() {
        super.willSave()
        counter += 1
    }
}

/// Failure paths of a save: each is a typed error thrown before any SQL, with the store and
/// the context's pending changes as they were.
final class SaveFailurePathTests: StoreTestCase {
    static let entities: [ManagedObject.Type] = [Shelf.self, Card.self, AuditedNote.self, AuditEntry.self, Restless.self,
                                                 Specimen.self, Author.self, Library.self, Book.self]

    // MARK: Dangling references (to an unsaved object deleted before the save)

    func testAToOneWithoutInverseToADeletedUnsavedObjectIsAValidationErrorAndNothingIsWritten() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let shelf = Shelf(context: context)
        shelf.label = "Kept"
        try context.save()
        let before = try SQLiteFile.dump(storeURL)

        let card = Card(context: context)
        card.title = "Gone"
        shelf.pinned = card
        let cardID = card.objectID
        context.delete(card)
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("expected ValidationError, got \(error)") }
            XCTAssertEqual(validation.problems.count, 1, "\(validation)")
            let problem = validation.problems[0]
            XCTAssertEqual(problem.objectID, shelf.objectID)
            XCTAssertEqual(problem.entity, "Shelf")
            XCTAssertEqual(problem.key, "pinned")
            XCTAssertTrue(problem.message.contains("\(cardID)") && problem.message.contains("Card"), problem.message)
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "nothing is written")
        XCTAssertTrue(context.hasChanges, "the change stays pending")
        XCTAssertEqual(context.updatedObjects, [shelf])

        shelf.pinned = nil
        try context.save()
        XCTAssertEqual(try SQLiteFile(storeURL).rows("SELECT ZLABEL, ZPINNED FROM ZSHELF"), [[.text("Kept"), .null]])
    }

    func testAToManyWithoutInverseToADeletedUnsavedObjectIsAValidationErrorAndNoJoinRowIsWritten() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let shelf = Shelf(context: context)
        shelf.label = "New"
        let kept = Card(context: context)
        kept.title = "Kept"
        let gone = Card(context: context)
        gone.title = "Gone"
        shelf.cards = [kept, gone]
        context.delete(gone)
        let before = try SQLiteFile.dump(storeURL)
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("expected ValidationError, got \(error)") }
            XCTAssertEqual(validation.problems.map(\.key), ["cards"], "\(validation)")
            XCTAssertEqual(validation.problems.first?.objectID, shelf.objectID)
            XCTAssertTrue(validation.problems.first?.message.contains("Card") ?? false)
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "nothing is written")
        XCTAssertEqual(context.insertedObjects, [shelf, kept])

        shelf.cards = [kept]
        try context.save()
        let file = try SQLiteFile(storeURL)
        let joins = try file.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z!_%CARDS' ESCAPE '!'")
        let join = try XCTUnwrap(joins.first?.first?.string)
        let rows = try file.rows("SELECT * FROM \(join)")
        XCTAssertEqual(rows.count, 1)
        XCTAssertTrue(rows.joined().allSatisfy { ($0.int ?? 0) > 0 }, "no temporary (negative) key in \(join): \(rows)")
    }

    func testANoActionRelationshipToADeletedUnsavedObjectIsAValidationError() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let library = Library(context: context)     // Library.books: delete rule .noAction
        library.name = "Closed"
        let book = Book(context: context)
        book.title = "Orphan"
        book.library = library
        context.delete(library)
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("expected ValidationError, got \(error)") }
            XCTAssertEqual(validation.problems.map(\.key), ["library"], "\(validation)")
            XCTAssertEqual(validation.problems.first?.entity, "Book")
        }
        XCTAssertEqual(context.insertedObjects, [book])
        book.library = nil
        try context.save()
        XCTAssertEqual(try SQLiteFile(storeURL).rows("SELECT ZTITLE, ZLIBRARY FROM ZBOOK"), [[.text("Orphan"), .null]])
    }

    // MARK: Changes made in willSave()

    func testObjectsInsertedAndChangedInWillSaveAreSavedAndTheirOwnWillSaveRuns() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let note = AuditedNote(context: context)
        note.text = "hello"
        try context.save()

        XCTAssertFalse(context.hasChanges, "nothing left pending: \(context.insertedObjects)")
        XCTAssertEqual(note.willSaveCalls, 2, "called again because it changed itself, as Core Data does")
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.rows("SELECT ZTEXT, ZLOGGED FROM ZAUDITEDNOTE"), [[.text("hello"), .integer(1)]])
        XCTAssertEqual(try file.rows("SELECT ZNOTE, ZSTAMPED FROM ZAUDITENTRY"), [[.text("hello"), .integer(1)]],
                       "the entry inserted in willSave is saved, stamped by its own willSave")
        let entries = try fetchAll(AuditEntry.self, in: context)
        XCTAssertEqual(entries.count, 1)
        XCTAssertFalse(entries[0].isInserted)
        XCTAssertFalse(entries[0].objectID.isTemporaryID)
    }

    func testAnObjectDeletedInWillSaveIsDeletedFromTheStore() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let note = AuditedNote(context: context)
        note.text = "short-lived"
        try context.save()
        note.discard = true
        try context.save()

        XCTAssertFalse(context.hasChanges, "nothing left pending: \(context.deletedObjects)")
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM ZAUDITEDNOTE")?.int, 0)
        let reopened = try makeContainer(Self.entities, name: "Reopened")
        XCTAssertEqual(try reopened.viewContext.count(for: FetchRequest<AuditedNote>()), 0)
    }

    func testWillSaveThatNeverSettlesIsATypedErrorAndNothingIsWritten() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let restless = Restless(context: context)
        XCTAssertThrowsError(try context.save()) { error in
            guard let error = error as? ContextError else { return XCTFail("expected ContextError, got \(error)") }
            XCTAssertEqual(error.code, .saveDidNotSettle)
            XCTAssertEqual(error.objectID, restless.objectID)
            XCTAssertTrue(error.message.contains("willSave"), error.message)
        }
        XCTAssertEqual(context.insertedObjects, [restless], "the insert stays pending")
        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT COUNT(*) FROM ZRESTLESS")?.int, 0, "nothing written")
    }

    // MARK: Codable values JSON cannot encode

    func testACodableValueJSONRefusesIsAValidationErrorAtSaveAndNothingIsWritten() throws {
        let container = try makeContainer(Self.entities)
        let context = container.viewContext
        let specimen = Specimen(context: context)
        specimen.text = "saved"
        try context.save()
        let before = try SQLiteFile.dump(storeURL)

        specimen.dimensions = Dimensions(width: .nan, height: .infinity, labels: ["x"])
        XCTAssertTrue(specimen.dimensions.width.isNaN, "the value reads back as set")
        XCTAssertEqual(specimen.dimensions.height, .infinity)
        XCTAssertThrowsError(try context.save()) { error in
            guard let validation = error as? ValidationError else { return XCTFail("expected ValidationError, got \(error)") }
            XCTAssertEqual(validation.problems.map(\.key), ["dimensions"], "\(validation)")
            XCTAssertEqual(validation.problems.first?.objectID, specimen.objectID)
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before, "nothing is written")
        XCTAssertEqual(context.updatedObjects, [specimen], "the change stays pending")

        let fresh = Specimen(context: context)
        try fresh.setValue(Dimensions(width: -.infinity, height: 1, labels: []), forKey: "optionalDimensions")
        XCTAssertThrowsError(try context.save()) { error in
            XCTAssertEqual(Set((error as? ValidationError)?.problems.compactMap(\.key) ?? []), ["dimensions", "optionalDimensions"])
        }

        specimen.dimensions = Dimensions(width: 2, height: 3, labels: ["x"])
        fresh.optionalDimensions = nil
        try context.save()
        let reopened = try makeContainer(Self.entities, name: "Reopened")
        let stored = try object(Specimen.self, try translate(specimen.objectID, to: reopened), in: reopened.viewContext)
        XCTAssertEqual(stored.dimensions, Dimensions(width: 2, height: 3, labels: ["x"]))
    }
}
