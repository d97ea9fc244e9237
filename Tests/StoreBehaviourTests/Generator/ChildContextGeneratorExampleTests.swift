import Foundation
import ObjectGraph
import Testing

/// The generator's child-context findings, shrunk, run on both stores (each failed before its fix).
extension ObjectGraphGeneratorExampleTests {
    @Test("Found: a grandchild's save into a child that is then dropped leaves the parent as it was", arguments: StoreKind.allCases)
    func droppedChildAfterGrandchildSave(_ kind: StoreKind) throws {
        // Seed 700094 (long run, SQLite), shrunk.
        try expectNoMismatch([
            .insert(actor: 0, .department),
            .setDepartment(actor: 0, employee: 57, department: 4),
            .child(actor: 0, steps: [
                .setText(actor: 0, pick: 50, clear: false),
                .child(actor: 0, steps: [
                    .setNumber(actor: 0, .department, pick: 26),
                    .delete(actor: 0, .department, pick: 30),
                    .setDepartment(actor: 0, employee: 57, department: 31),
                    .reorderTags(actor: 0, project: 32, by: 2),
                    .delete(actor: 0, .department, pick: 10),
                ], saves: true),
                .insert(actor: 0, .employee),
                .setDepartment(actor: 0, employee: 25, department: 43),
            ], saves: false),
        ], kind)
    }
}
