import Foundation
import ManagedRecord
import Synchronization
import XCTest

/// The rest of RHManagedObject's behaviour: a delete that waits for commit, introspection,
/// fetches without a predicate, per-call sub-entities, dictionaries with a limit and in the
/// background, moving sets and dictionaries between threads, the will-commit hook, and
/// manager settings that reach contexts already made.
final class RecordBehaviourTests: RecordTestCase {
    private func people(_ names: [String], boss: String? = nil) throws {
        for (index, name) in names.enumerated() {
            let p = Person.newEntity()
            p.lastName = name; p.age = 20 + index
        }
        if let boss {
            let b = Boss.newEntity()
            b.lastName = boss; b.age = 60
        }
        try Person.commit()
    }

    func testDeleteWhereWaitsForCommitAndRollsBack() throws {
        try people(["Ames", "Bell", "Cole"])
        XCTAssertEqual(try Person.delete(where: "age < %@", 22), 2)
        XCTAssertEqual(Person.pendingChangesCount, 2)
        XCTAssertEqual(try Person.count(), 1, "pending deletions are left out of fetches and counts")
        Person.rollback()
        XCTAssertEqual(Person.pendingChangesCount, 0)
        XCTAssertEqual(try Person.fetchAll(sortedBy: [SortKey("lastName")]).map(\.lastName), ["Ames", "Bell", "Cole"])
        try Person.delete(where: "age < %@", 22)
        try Person.commit()
        onNewThread { XCTAssertEqual(try? Person.fetchAll().map(\.lastName), ["Cole"]) }
        XCTAssertThrowsError(try Person.delete(where: "age <<< 1")) { XCTAssertTrue($0 is FetchPredicateError) }
    }

    func testEntityDescriptionAttributeTypesAndPendingChanges() throws {
        XCTAssertEqual(Person.entityDescription.name, "Person")
        XCTAssertEqual(Boss.entityDescription.superentity?.name, "Person")
        XCTAssertEqual(try Person.attributeType(forKey: "age"), .integer64)
        XCTAssertEqual(try Person.attributeType(forKey: "badge"), .uuid)
        XCTAssertThrowsError(try Person.attributeType(forKey: "company")) { error in
            XCTAssertEqual((error as? KeyValueError)?.code, .unknownKey, "a relationship is not an attribute: \(error)")
        }
        XCTAssertThrowsError(try Person.attributeType(forKey: "salary")) { error in
            XCTAssertTrue("\(error)".contains("salary"), "\(error)")
        }
        XCTAssertEqual(Person.pendingChangesCount, 0)
        _ = Person.newEntity()
        _ = Company.newEntity()
        XCTAssertEqual(Person.pendingChangesCount, 2, "every entity of the thread's context counts")
    }

    func testGetAndLimitWithoutAPredicateAndSubentitiesPerCall() throws {
        XCTAssertNil(try Person.get())
        try people(["Ames", "Bell", "Cole"], boss: "Boyd")
        XCTAssertEqual(try Person.get(sortedBy: [SortKey("lastName", ascending: false)])?.lastName, "Cole")
        XCTAssertEqual(try Person.fetchAll(sortedBy: [SortKey("lastName")], limit: 2).map(\.lastName), ["Ames", "Bell"])
        XCTAssertEqual(try Person.fetchAll().count, 4)
        XCTAssertEqual(try Person.fetchAll(includesSubentities: false).count, 3, "no Boss")
        XCTAssertEqual(try Person.fetch(where: "age > %@", 21, includesSubentities: false).map(\.lastName), ["Cole"])
        XCTAssertEqual(try Person.get(sortedBy: [SortKey("age", ascending: false)], includesSubentities: false)?.lastName, "Cole")
    }

    @MainActor
    func testFetchDictionaryWithALimitAndInTheBackground() async throws {
        try people(["Ames", "Bell", "Cole"])
        let two = try Person.fetchDictionary(keyedBy: "lastName", sortedBy: [SortKey("lastName")], limit: 2)
        XCTAssertEqual(Set(two.keys), ["Ames", "Bell"])
        let background = try await Person.fetchDictionaryInBackground(keyedBy: "lastName", where: try FetchPredicate("age > %@", 20))
        XCTAssertEqual(Set(background.keys), ["Bell", "Cole"])
        XCTAssertTrue(background.values.allSatisfy { $0.managedObjectContext === Person.contextForCurrentThread },
                      "the objects come back in the caller's context")
    }

    func testSetsAndDictionariesMoveToTheCurrentThreadsContext() throws {
        try people(["Ames", "Bell"])
        let everyone = Set(try Person.fetchAll())
        let byName = try Person.fetchDictionary(keyedBy: "lastName")
        nonisolated(unsafe) let sent = (everyone, byName)   // handed to one thread, used there only through inCurrentThreadContext
        onNewThread {
            let here = Person.contextForCurrentThread
            let set = try! sent.0.inCurrentThreadContext()
            let dictionary = try! sent.1.inCurrentThreadContext()
            XCTAssertEqual(set.count, 2)
            XCTAssertTrue(set.allSatisfy { $0.managedObjectContext === here })
            XCTAssertEqual(dictionary["Bell"]?.lastName, "Bell")
            XCTAssertTrue(dictionary.values.allSatisfy { $0.managedObjectContext === here })
        }
        everyone.first!.age = 99                          // unsaved: cannot move
        nonisolated(unsafe) let changed = everyone
        onNewThread {
            do {
                _ = try changed.inCurrentThreadContext()
                XCTFail("an object with unsaved changes must not move")
            } catch {
                XCTAssertTrue(error is RecordError, "\(error)")
            }
        }
    }

    func testTheWillCommitHookHearsThePendingCountOnTheCommittingThread() throws {
        let heard = Mutex<[Int]>([])
        Person.contextManager.willCommit = { count in heard.withLock { $0.append(count) } }
        defer { Person.contextManager.willCommit = nil }
        try people(["Ames", "Bell", "Cole"])
        try Person.commit()                                     // nothing to write: not called
        onNewThread {
            try! Person.delete(where: "lastName == %@", "Ames")
            Person.firstByLastName().age = 1
            try! Person.commit()
        }
        XCTAssertEqual(heard.withLock { $0 }, [3, 2])
    }

    func testSettingsChangedOnTheManagerReachContextsAlreadyMade() throws {
        try people(["Ames"])
        let id = try XCTUnwrap(try Person.get()).objectID
        onNewThread { _ = try? Person.count() }                // this thread's context exists now ...
        XCTAssertNotNil(Person.contextForCurrentThread.undoStack)
        Person.contextManager.mergePolicy = .error               // ... and so does the main one
        Person.contextManager.undoEnabled = false
        defer {
            Person.contextManager.mergePolicy = .mergeByPropertyObjectTrump
            Person.contextManager.undoEnabled = true
        }
        XCTAssertNil(Person.contextForCurrentThread.undoStack, "the main context stopped recording undo")
        XCTAssertEqual(Person.contextForCurrentThread.mergePolicy, .error)
        let main = try XCTUnwrap(try Person.get())
        main.age = 70                                            // unsaved here
        onNewThread {
            let same = try! Person.contextForCurrentThread.existingObject(with: id) as! Person
            same.age = 80
            try! Person.commit()
        }
        XCTAssertThrowsError(try Person.commit(), "the .error policy now refuses a conflicting commit") { error in
            XCTAssertTrue(error is MergeConflictError, "\(error)")
        }
        Person.contextManager.mergePolicy = .mergeByPropertyObjectTrump
        try Person.commit()
        XCTAssertEqual(main.age, 70)
    }
}

extension Person {
    /// The first person of the calling thread's context (a test shorthand).
    static func firstByLastName() -> Person { try! Person.fetchAll(sortedBy: [SortKey("lastName")]).first! }
}
