import Foundation
import ObjectGraph
import XCTest

final class Subscriber: ManagedObject {
    @Attribute(.unique) var email: String = ""
    @Attribute var name: String = ""
    @Attribute var visits: Int = 0
    @Relationship var club: Club?
    @Relationship(inverse: \Voucher.$owner) var vouchers: Set<Voucher>
}

final class Club: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(inverse: \Subscriber.$club) var subscribers: Set<Subscriber>
}

final class Voucher: ManagedObject {
    @Attribute var code: String = ""
    @Relationship var owner: Subscriber?
}

/// A new object whose uniqueness-constrained values another object has, resolved by the
/// context's merge policy as Core Data resolves constraint conflicts: against a row already
/// stored, and between new objects of one save.
final class ConstraintMergePolicyTests: StoreTestCase {
    private let model: [ManagedObject.Type] = [Subscriber.self, Club.self, Voucher.self]

    /// What the store holds for a@x afterwards, read by a fresh container.
    private struct Outcome: Equatable {
        var subscribers: Int
        var name: String
        var visits: Int
        var club: String?
        var vouchers: [String]
        var ownerlessVouchers: [String]
    }

    private func outcome() throws -> Outcome {
        let context = try makeContainer(model).viewContext
        let all = try fetchAll(Subscriber.self, in: context)
        let one = try XCTUnwrap(all.first { $0.email == "a@x" })
        let ownerless = try fetchAll(Voucher.self, in: context).filter { $0.owner == nil }.map(\.code).sorted()
        return Outcome(subscribers: all.count, name: one.name, visits: one.visits, club: one.club?.title,
                       vouchers: one.vouchers.map(\.code).sorted(), ownerlessVouchers: ownerless)
    }

    /// Stores Ann (a@x, 3 visits, club Chess, voucher V1); then a new context inserts Annie
    /// (a@x, 0 visits, club Go, voucher V2) and saves with `policy`.
    private func saveAgainstAStoredRow(_ policy: MergePolicy) throws -> Outcome {
        do {
            let context = try makeContainer(model).viewContext
            let ann = Subscriber(context: context)
            ann.email = "a@x"; ann.name = "Ann"; ann.visits = 3
            let chess = Club(context: context); chess.title = "Chess"
            ann.club = chess
            let v1 = Voucher(context: context); v1.code = "V1"; v1.owner = ann
            try context.save()
        }
        let context = try makeContainer(model).viewContext
        context.mergePolicy = policy
        let annie = Subscriber(context: context)
        annie.email = "a@x"; annie.name = "Annie"
        let go = Club(context: context); go.title = "Go"
        annie.club = go
        let v2 = Voucher(context: context); v2.code = "V2"; v2.owner = annie
        try context.save()
        XCTAssertFalse(context.hasChanges)
        let result = try outcome()
        // The inserted object took the stored row's identity and reads as the store does.
        XCTAssertFalse(annie.isDeleted, "\(policy)")
        XCTAssertEqual(annie.objectID.primaryKey, 1, "\(policy): Ann's row")
        XCTAssertTrue(context.registeredObject(for: annie.objectID) === annie)
        XCTAssertEqual(annie.name, result.name, "\(policy)")
        XCTAssertEqual(annie.club?.title, result.club, "\(policy)")
        XCTAssertEqual(annie.vouchers.map(\.code).sorted(), result.vouchers, "\(policy)")
        XCTAssertEqual(v2.owner === annie, result.vouchers.contains("V2"), "\(policy)")
        return result
    }

    /// One save inserts First (a@x, 1 visit, club Chess) and then Second (a@x, 2 visits,
    /// voucher V2) with `policy`.
    private func saveTwoNewObjects(_ policy: MergePolicy) throws -> Outcome {
        let context = try makeContainer(model).viewContext
        context.mergePolicy = policy
        let first = Subscriber(context: context)
        first.email = "a@x"; first.name = "First"; first.visits = 1
        let chess = Club(context: context); chess.title = "Chess"
        first.club = chess
        let second = Subscriber(context: context)
        second.email = "a@x"; second.name = "Second"; second.visits = 2
        let v2 = Voucher(context: context); v2.code = "V2"; v2.owner = second
        try context.save()
        XCTAssertEqual(try context.count(for: FetchRequest<Subscriber>()), 1)
        return try outcome()
    }

    func testObjectTrumpMergesTheNewObjectIntoTheStoredRow() throws {
        XCTAssertEqual(try saveAgainstAStoredRow(.mergeByPropertyObjectTrump),
                       Outcome(subscribers: 1, name: "Annie", visits: 0, club: "Go", vouchers: ["V1", "V2"], ownerlessVouchers: []))
    }

    func testStoreTrumpKeepsTheStoredValuesAndGainsTheNewLinks() throws {
        XCTAssertEqual(try saveAgainstAStoredRow(.mergeByPropertyStoreTrump),
                       Outcome(subscribers: 1, name: "Ann", visits: 3, club: "Chess", vouchers: ["V1", "V2"], ownerlessVouchers: []))
    }

    func testOverwriteReplacesTheStoredRowWithTheNewObject() throws {
        XCTAssertEqual(try saveAgainstAStoredRow(.overwrite),
                       Outcome(subscribers: 1, name: "Annie", visits: 0, club: "Go", vouchers: ["V2"], ownerlessVouchers: ["V1"]))
    }

    func testRollbackDiscardsTheNewObject() throws {
        XCTAssertEqual(try saveAgainstAStoredRow(.rollback),
                       Outcome(subscribers: 1, name: "Ann", visits: 3, club: "Chess", vouchers: ["V1"], ownerlessVouchers: ["V2"]))
    }

    func testWhenTheStoredRowsObjectIsAlreadyInTheContextTheNewObjectIsMergedIntoIt() throws {
        do {
            let context = try makeContainer(model).viewContext
            let ann = Subscriber(context: context)
            ann.email = "a@x"; ann.name = "Ann"; ann.visits = 3
            try context.save()
        }
        let context = try makeContainer(model).viewContext
        context.mergePolicy = .mergeByPropertyObjectTrump
        let ann = try XCTUnwrap(fetchAll(Subscriber.self, in: context).first)
        let annie = Subscriber(context: context)
        annie.email = "a@x"; annie.name = "Annie"
        let v2 = Voucher(context: context); v2.code = "V2"; v2.owner = annie
        try context.save()
        XCTAssertTrue(annie.isDeleted, "merged into the registered object")
        XCTAssertEqual(ann.name, "Annie")
        XCTAssertTrue(v2.owner === ann)
        XCTAssertEqual(try outcome(), Outcome(subscribers: 1, name: "Annie", visits: 0, club: nil, vouchers: ["V2"], ownerlessVouchers: []))
    }

    func testObjectTrumpWithinOneSaveTheLaterObjectsValuesWin() throws {
        XCTAssertEqual(try saveTwoNewObjects(.mergeByPropertyObjectTrump),
                       Outcome(subscribers: 1, name: "Second", visits: 2, club: "Chess", vouchers: ["V2"], ownerlessVouchers: []))
    }

    func testStoreTrumpWithinOneSaveTheFirstObjectsValuesWin() throws {
        XCTAssertEqual(try saveTwoNewObjects(.mergeByPropertyStoreTrump),
                       Outcome(subscribers: 1, name: "First", visits: 1, club: "Chess", vouchers: ["V2"], ownerlessVouchers: []))
    }

    func testOverwriteWithinOneSaveTheLaterObjectReplacesTheFirst() throws {
        XCTAssertEqual(try saveTwoNewObjects(.overwrite),
                       Outcome(subscribers: 1, name: "Second", visits: 2, club: nil, vouchers: ["V2"], ownerlessVouchers: []))
    }

    func testRollbackWithinOneSaveDiscardsTheLaterObject() throws {
        XCTAssertEqual(try saveTwoNewObjects(.rollback),
                       Outcome(subscribers: 1, name: "First", visits: 1, club: "Chess", vouchers: [], ownerlessVouchers: ["V2"]))
    }

    func testTheErrorPolicyThrowsNamingTheObjectsAgainstAStoredRowAndWithinOneSave() throws {
        XCTAssertThrowsError(try saveAgainstAStoredRow(.error)) { error in
            let conflict = (error as? ConstraintConflictError)?.conflicts.first
            XCTAssertEqual(conflict?.entity, "Subscriber", "\(error)")
            XCTAssertEqual(conflict?.constraint, ["email"])
            XCTAssertEqual(conflict?.conflictingObjectIDs.map(\.isTemporaryID), [false], "the stored row")
        }
        try FileManager.default.removeItem(at: storeURL)
        XCTAssertThrowsError(try saveTwoNewObjects(.error)) { error in
            XCTAssertEqual((error as? ConstraintConflictError)?.conflicts.count, 2, "each new object names the other: \(error)")
        }
    }

    func testAnExistingObjectMovedOntoAnothersValuesIsRefusedUnderEveryPolicy() throws {
        do {
            let context = try makeContainer(model).viewContext
            for email in ["a@x", "b@x"] { Subscriber(context: context).email = email }
            try context.save()
        }
        for policy: MergePolicy in [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            let context = try makeContainer(model).viewContext
            context.mergePolicy = policy
            let b = try XCTUnwrap(fetchAll(Subscriber.self, in: context).first { $0.email == "b@x" })
            b.email = "a@x"
            XCTAssertThrowsError(try context.save(), "\(policy)") { error in
                XCTAssertTrue(error is ConstraintConflictError, "\(error)")
            }
        }
        XCTAssertEqual(try fetchAll(Subscriber.self, in: makeContainer(model).viewContext).map(\.email).sorted(), ["a@x", "b@x"])
    }
}
