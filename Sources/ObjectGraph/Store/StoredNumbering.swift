import Foundation

/// One row of a store's `Z_PRIMARYKEY`: an entity's number (`Z_ENT`), the name it is stored
/// under, and its parent's number (`Z_SUPER`, 0 for a root).
struct StoredEntity: Equatable {
    let number: Int64
    let name: String
    let parent: Int64
}

/// Which `Z_PRIMARYKEY` row holds each entity of a model.
///
/// Core Data numbers entities from the model and keeps `Z_PRIMARYKEY` for their last keys:
/// after an entity is renamed (by renaming identifier) the row keeps the old name
/// (`Z_NAME`), while the version hashes and the rows' `Z_ENT` follow the model. So an entity
/// is matched by its name; else by its renaming identifier; else, in a store written with
/// this very model (its version hashes are the model's), by the number the model's order
/// gives it, when that row names no entity of the model. An entity matched by none of these
/// is new to the store.
struct StoredNumbering {
    /// `Z_ENT` by model entity name, for the entities the store numbers.
    private(set) var numbers: [String: Int64] = [:]
    /// The stored parent's number (`Z_SUPER`) by model entity name.
    private(set) var parents: [String: Int64] = [:]
    /// Model entities the store numbers under another name, with that name.
    private(set) var renamed: [(entity: EntityDescription, storedName: String)] = []
    /// Model entities the store does not number, in model order.
    private(set) var missing: [EntityDescription] = []
    /// Rows no model entity matched.
    private(set) var unmatched: [StoredEntity] = []
    /// ``numbers`` with each of ``missing`` given a number after the store's last, in model
    /// order: the numbers opening the store gives new entities.
    private(set) var numbersWithNewEntities: [String: Int64] = [:]

    /// Matches `rows` to `model`'s entities; `writtenWithModel` says the store's version
    /// hashes are the model's, which allows matching by the model's numbering.
    init(model: ManagedObjectModel, rows: [StoredEntity], writtenWithModel: Bool) {
        var byName: [String: StoredEntity] = [:]
        for row in rows where byName[row.name] == nil { byName[row.name] = row }
        let byNumber = Dictionary(rows.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        let modelNames = Set(model.entities.map(\.name))
        var claimed = Set<Int64>()
        func take(_ row: StoredEntity, for entity: EntityDescription) {
            numbers[entity.name] = row.number
            parents[entity.name] = row.parent
            claimed.insert(row.number)
            if row.name != entity.name { renamed.append((entity, row.name)) }
        }
        var unnamed: [EntityDescription] = []
        for entity in model.entities {
            if let row = byName[entity.name] { take(row, for: entity) } else { unnamed.append(entity) }
        }
        // A stored name the model also uses belongs to that entity, never to a renamed one.
        func isFree(_ row: StoredEntity) -> Bool { !claimed.contains(row.number) && !modelNames.contains(row.name) }
        var unfound: [EntityDescription] = []
        for entity in unnamed {
            if let identifier = entity.fileDetails.renamingIdentifier, let row = byName[identifier], isFree(row) {
                take(row, for: entity)
            } else {
                unfound.append(entity)
            }
        }
        if writtenWithModel {
            let modelNumbers = StoreLayout.defaultNumbers(for: model)
            for entity in unfound {
                if let row = byNumber[modelNumbers[entity.name]!], isFree(row) { take(row, for: entity) } else { missing.append(entity) }
            }
        } else {
            missing = unfound
        }
        unmatched = rows.filter { !claimed.contains($0.number) }
        numbersWithNewEntities = numbers
        var next = (rows.map(\.number).max() ?? 0) + 1
        for entity in missing {
            numbersWithNewEntities[entity.name] = next
            next += 1
        }
    }

    /// The error for a store that lacks `missing` while it numbers `unmatched` entities the
    /// model does not name: giving the missing entities rows of their own would leave the
    /// unmatched entities' rows behind, so nothing is written. Nil when there is no such risk.
    func orphaningError(url: URL?) -> StoreError? {
        guard !missing.isEmpty, !unmatched.isEmpty else { return nil }
        let stored = unmatched.map { "\($0.name) (Z_ENT \($0.number))" }.joined(separator: ", ")
        let lacking = missing.map(\.name).joined(separator: ", ")
        return StoreError(.incompatibleModel, url: url, "the store numbers entities the model does not name (\(stored)) and lacks the model's \(lacking): numbering \(lacking) anew would leave the stored rows behind. If \(lacking) is one of them renamed, give it that name as its renaming identifier (elementID in the model file); otherwise open the store with the model it was written with. Nothing was changed")
    }
}
