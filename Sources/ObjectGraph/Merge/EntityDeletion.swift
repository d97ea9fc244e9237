import Foundation

/// Every object of `entities` whose primary key is at most `maxKey` was deleted: what a
/// batch delete without a predicate tells contexts instead of the IDs of its rows. Keys are
/// allocated upward from `Z_PRIMARYKEY` and `maxKey` is read in the deleting transaction, so
/// an object saved afterwards (even one merged later than that save) has a larger key and is
/// not named; objects with temporary IDs never are.
struct EntityDeletion: Sendable {
    /// The concrete entities deleted (sub-entities listed when they were included).
    let entities: [EntityDescription]
    let maxKey: Int64

    func contains(_ id: ObjectID) -> Bool {
        contains(key: id.key, entity: id.entity)
    }

    /// Whether the object of `entity` with primary key `key` is named.
    func contains(key: Int64, entity: EntityDescription) -> Bool {
        key > 0 && key <= maxKey && entities.contains { $0 === entity }
    }
}
