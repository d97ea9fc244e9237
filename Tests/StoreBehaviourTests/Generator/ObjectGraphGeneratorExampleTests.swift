import Foundation
import ObjectGraph
import Testing

/// Fixed sequences of the generator's steps: the shrunk reproductions of what it found (each
/// failed before its fix), run on both stores.
@Suite("Object graph generator examples", .onOwnThreads)
struct ObjectGraphGeneratorExampleTests {
    func expectNoMismatch(_ steps: [GraphStep], _ kind: StoreKind) throws {
        let result = try ObjectGraphGeneratorTests.check(steps, on: kind)
        #expect(result.mismatch == nil, "\(result.mismatch.map(\.description) ?? "")")
        #expect(result.executed == steps.count)
    }

    @Test("Found: a many-to-many removal, refreshed with merging, is saved", arguments: StoreKind.allCases)
    func manyToManyRemovalAfterRefresh(_ kind: StoreKind) throws {
        try expectNoMismatch([
            .insert(actor: 0, .project), .insert(actor: 0, .employee),
            .setMember(actor: 0, project: 0, employee: 0, member: true, fromProject: true),
            .save(actor: 0),
            .setMember(actor: 0, project: 0, employee: 0, member: false, fromProject: false),
            .refresh(actor: 0, .employee, pick: 0, merge: true),
            .refresh(actor: 0, .project, pick: 0, merge: true),
            .save(actor: 0),
        ], kind)
    }

    @Test("Found: undoing a delete dropped the object's earlier unsaved change from the save", arguments: StoreKind.allCases)
    func undoDeleteKeepsEarlierChange(_ kind: StoreKind) throws {
        // Seed 2321, shrunk.
        try expectNoMismatch([
            .setText(actor: 0, pick: 3, clear: false),
            .delete(actor: 0, .employee, pick: 3),
            .undo(actor: 0),
            .save(actor: 0),
        ], kind)
    }

    @Test("Found: a second container's save after another deleted rows it still shows", arguments: StoreKind.allCases)
    func saveAfterUnmergedCascade(_ kind: StoreKind) throws {
        // Seed 900234 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .delete(actor: 0, .department, pick: 53),
            .insert(actor: 0, .employee),
            .save(actor: 0),
            .insert(actor: 2, .employee),
            .setNumber(actor: 2, .employee, pick: 26),
            .save(actor: 2),
        ], kind)
    }

    @Test("Found: a save whose only change was to a row deleted elsewhere writes nothing", arguments: StoreKind.allCases)
    func saveOfAChangeToADeletedRow(_ kind: StoreKind) throws {
        // Seed 900242 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .delete(actor: 0, .employee, pick: 16),
            .save(actor: 0),
            .setText(actor: 2, pick: 32, clear: false),
            .save(actor: 2),
        ], kind)
    }

    @Test("Found: a member removed from an unordered to-many and added again is no change", arguments: StoreKind.allCases)
    func memberRemovedAndAddedAgain(_ kind: StoreKind) throws {
        // Seed 900441 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .setDepartment(actor: 1, employee: 16, department: -1),
            .setNumber(actor: 0, .department, pick: 50),
            .save(actor: 0),
            .setDepartment(actor: 1, employee: 20, department: 52),
            .save(actor: 1),
        ], kind)
    }

    @Test("Found: a many-to-many member removed on one side and added again on the other is no change", arguments: StoreKind.allCases)
    func manyToManyMemberRemovedAndAddedAgain(_ kind: StoreKind) throws {
        // Seed 900300 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .setMember(actor: 0, project: 61, employee: 60, member: true, fromProject: true),
            .save(actor: 0),
            .insert(actor: 1, .employee),
            .insert(actor: 1, .employee),
            .setMember(actor: 1, project: 14, employee: 26, member: false, fromProject: true),
            .setNumber(actor: 0, .employee, pick: 12),
            .insert(actor: 0, .employee),
            .save(actor: 0),
            .setMember(actor: 1, project: 48, employee: 7, member: true, fromProject: false),
            .save(actor: 1),
        ], kind)
    }

    @Test("Found: a save merged into an object with unsaved changes left it listing a member the save took out", arguments: StoreKind.allCases)
    func mergeIntoAnObjectWithUnsavedChanges(_ kind: StoreKind) throws {
        // Seed 900653 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .setDepartment(actor: 0, employee: 10, department: 50),
            .insert(actor: 1, .employee),
            .setDepartment(actor: 1, employee: 50, department: -1),
            .save(actor: 1),
            .save(actor: 0),
            .insert(actor: 0, .department),
            .delete(actor: 0, .department, pick: 21),
            .rollback(actor: 0),
        ], kind)
    }

    @Test("Found: undo after a save of an object inserted and deleted again", arguments: StoreKind.allCases)
    func undoAfterSavingNothing(_ kind: StoreKind) throws {
        // Seed 900936 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .insert(actor: 0, .employee),
            .delete(actor: 0, .employee, pick: 54),
            .save(actor: 0),
            .undo(actor: 0),
        ], kind)
    }

    @Test("Found: undo of a many-to-many insert after another container saved the same member", arguments: StoreKind.allCases)
    func undoManyToManyInsertSavedElsewhere(_ kind: StoreKind) throws {
        // Seed 901348 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .setMember(actor: 0, project: 25, employee: 8, member: true, fromProject: true),
            .setMember(actor: 2, project: 11, employee: 29, member: true, fromProject: true),
            .save(actor: 2),
            .undo(actor: 0),
        ], kind)
    }

    @Test("Found: undo of a move between ordered to-manys after merging another save", arguments: StoreKind.allCases)
    func undoOrderedMoveAfterExplicitMerge(_ kind: StoreKind) throws {
        // Seed 901373 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .setProject(actor: 2, tag: 49, project: 35),
            .setProject(actor: 1, tag: 47, project: 28),
            .save(actor: 1),
            .mergeSecondContainer,
            .undo(actor: 2),
        ], kind)
    }

    @Test("Found: appending to an ordered to-many another container just saved keeps its order", arguments: StoreKind.allCases)
    func appendToAnOrderedToManySavedElsewhere(_ kind: StoreKind) throws {
        // Seed 904175 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .insert(actor: 1, .project),
            .setProject(actor: 1, tag: 32, project: 26),
            .setProject(actor: 1, tag: 24, project: 20),
            .save(actor: 1),
            .setProject(actor: 2, tag: 61, project: 56),
            .save(actor: 2),
        ], kind)
    }

    @Test("Found: a tag another container's save (from an older view) took out of a project stayed listed by the merging contexts",
          arguments: StoreKind.allCases)
    func tagMovedOutByAnOlderView(_ kind: StoreKind) throws {
        // Seed 905036 (long run, SQLite), shrunk. C, which never merged A's move of the tag to
        // P8, clears its project: its save names the project C knew, and A and B went on
        // listing the tag under P8 (`MemberMoves`).
        try expectNoMismatch([
            .setProject(actor: 0, tag: 12, project: 27),
            .save(actor: 0),
            .setMember(actor: 1, project: 1, employee: 53, member: true, fromProject: false),
            .setProject(actor: 2, tag: 60, project: -1),
            .save(actor: 2),
            .setProject(actor: 1, tag: 12, project: 59),
            .setMember(actor: 2, project: 43, employee: 41, member: true, fromProject: true),
            .save(actor: 2),
            .save(actor: 1),
        ], kind)
    }

    @Test("Found: a many-to-many member removed on the side that does not write the join table, by a context that had read the other object earlier, is saved",
          arguments: StoreKind.allCases)
    func manyToManyRemovalFromTheOtherSide(_ kind: StoreKind) throws {
        // Seed 921509 (long run, SQLite), shrunk. A adds E5 to a new project and saves; C,
        // which read E5 before that, reads the new project and removes E5 from its members.
        // C's E5 never listed the project, so the writing side (Employee.projects) did not
        // change and the save wrote nothing: the join row stayed.
        try expectNoMismatch([
            .insert(actor: 0, .project),
            .setMember(actor: 0, project: 35, employee: 34, member: true, fromProject: false),
            .save(actor: 0),
            .setMember(actor: 2, project: 17, employee: 5, member: false, fromProject: true),
            .save(actor: 2),
        ], kind)
    }

    @Test("Found: an unordered to-many a merge left with the members it had saved, in another order, is no change",
          arguments: StoreKind.allCases)
    func mergedToManyInAnotherOrder(_ kind: StoreKind) throws {
        // Seed 922022 (long run, SQLite), shrunk. A and C both move E4 into D2; C merges A's
        // save, which leaves D2 with the members the store holds, but in C's order (E5, E4)
        // against the snapshot's (E4, E5). C's save then wrote D2 as changed, so C showed the
        // budget A saved after C's merge for an object C had not changed.
        try expectNoMismatch([
            .insert(actor: 2, .employee),
            .setDepartment(actor: 0, employee: 25, department: 57),
            .setDepartment(actor: 2, employee: 31, department: 59),
            .save(actor: 0),
            .mergeSecondContainer,
            .setNumber(actor: 0, .department, pick: 1),
            .save(actor: 0),
            .save(actor: 2),
        ], kind)
    }
}
