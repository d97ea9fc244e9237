import Foundation
import ObjectGraph
import Testing

/// Uniqueness constraints: a duplicate is refused under `.error` and merged into the stored
/// row under the other policies, whichever container stored the first one.
@Suite("Uniqueness constraints", .onOwnThreads)
struct UniquenessConstraintTests {
    /// Ann's account (a@x, Sales/1, balance 10), saved through a container of its own.
    private func storeAnn(_ store: TestStore) throws -> ObjectID {
        let context = try store.container().viewContext
        let ann = Account(context: context)
        (ann.email, ann.name, ann.region, ann.number, ann.balance) = ("a@x", "Ann", "Sales", 1, 10)
        try context.save()
        return ann.objectID
    }

    private func accounts(_ store: TestStore) throws -> [String] {
        let reader = try store.container().viewContext
        return try reader.fetch(FetchRequest<Account>(sortDescriptors: [SortKey("email")])).map { "\($0.email) \($0.name) \($0.balance)" }
    }

    @Test("A duplicate insert under .error throws ConstraintConflictError naming both objects and writes nothing", arguments: StoreKind.allCases)
    func duplicateUnderErrorThrows(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let stored = try storeAnn(store)
        let context = try store.container().viewContext
        context.mergePolicy = .error
        let twin = Account(context: context)
        (twin.email, twin.name, twin.region, twin.number) = ("a@x", "Annie", "Sales", 2)
        let error = #expect(throws: ConstraintConflictError.self) { try context.save() }
        let conflict = try #require(error?.conflicts.first)
        #expect(error?.conflicts.count == 1)
        #expect(conflict.entity == "Account")
        #expect(conflict.constraint == ["email"])
        #expect(conflict.objectID == twin.objectID)
        #expect(conflict.conflictingObjectIDs.map(\.primaryKey) == [stored.primaryKey])
        #expect(context.hasChanges && twin.objectID.isTemporaryID, "the insert stays pending")
        #expect(try accounts(store) == ["a@x Ann 10"])

        twin.email = "b@x"
        try context.save()
        #expect(try accounts(store) == ["a@x Ann 10", "b@x Annie 0"])
    }

    @Test("A compound constraint and two duplicates within one save are refused under .error", arguments: StoreKind.allCases)
    func compoundAndSameSaveDuplicates(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        _ = try storeAnn(store)
        let context = try store.container().viewContext
        let sameNumber = Account(context: context)
        (sameNumber.email, sameNumber.region, sameNumber.number) = ("c@x", "Sales", 1)
        let compound = #expect(throws: ConstraintConflictError.self) { try context.save() }
        #expect(compound?.conflicts.map(\.constraint) == [["region", "number"]])
        sameNumber.number = 3

        let first = Account(context: context)
        (first.email, first.region, first.number) = ("d@x", "Ops", 1)
        let second = Account(context: context)
        (second.email, second.region, second.number) = ("d@x", "Ops", 2)
        let pair = #expect(throws: ConstraintConflictError.self) { try context.save() }
        let conflict = try #require(pair?.conflicts.first)
        #expect(conflict.constraint == ["email"])
        #expect(Set([conflict.objectID] + conflict.conflictingObjectIDs) == [first.objectID, second.objectID])
        #expect(try accounts(store) == ["a@x Ann 10"], "nothing of either save was written")
        context.delete(second)
        try context.save()
        #expect(try accounts(store).count == 3)
    }

    @Test("Under a merge policy a duplicate insert takes the stored row's identity, merged as the policy says",
          arguments: StoreKind.allCases, [MergePolicy.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback])
    func duplicateIsMergedUnderAPolicy(_ kind: StoreKind, _ policy: MergePolicy) throws {
        let store = try kind.newStore()
        let stored = try storeAnn(store)
        let context = try store.container().viewContext
        context.mergePolicy = policy
        let again = Account(context: context)
        (again.email, again.name, again.region, again.number, again.balance) = ("a@x", "Annie", "Sales", 1, 99)
        try context.save()
        #expect(!again.objectID.isTemporaryID)
        #expect(again.objectID.primaryKey == stored.primaryKey, "the new object is the stored row's object now")
        let expected = switch policy {
        case .mergeByPropertyObjectTrump, .overwrite: "a@x Annie 99"
        default: "a@x Ann 10"
        }
        #expect(try accounts(store) == [expected], "one row, merged")
        #expect("\(again.email) \(again.name) \(again.balance)" == expected, "the object holds what was written")
    }
}
