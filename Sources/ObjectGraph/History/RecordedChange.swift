import Foundation

/// One changed row as the history records it (an `ACHANGE` row to be): built from what a
/// save or batch request wrote, the same for every store.
struct RecordedChange {
    var type: HistoryChangeType
    var entity: EntityDescription
    var key: Int64
    /// `ZCOLUMNS` for an update (nil: not known).
    var columns: Data?
}

extension RecordedChange {
    /// The changes of a save as the store wrote it: every insert with its new key, every
    /// update (but those whose rows someone else deleted) with the properties it wrote, and
    /// every delete.
    static func changes(of save: SaveRequest, _ outcome: SaveOutcome) -> [RecordedChange] {
        var changes: [RecordedChange] = []
        changes.reserveCapacity(save.inserted.count + save.updated.count + save.deleted.count)
        for object in save.inserted {
            changes.append(RecordedChange(type: .insert, entity: object.entity, key: outcome.keys.storedKey(object.objectID)))
        }
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        for update in save.updated where !vanished.contains(ObjectIdentifier(update.object)) {
            let entity = update.object.entity
            changes.append(RecordedChange(type: .update, entity: entity, key: update.object.objectID.key,
                                          columns: HistoryColumns.encode(update.changes, of: entity)))
        }
        for object in save.deleted {
            changes.append(RecordedChange(type: .delete, entity: object.entity, key: object.objectID.key))
        }
        return changes
    }

    /// The changes of a batch delete: every deleted row (selected, or reached by a cascade
    /// rule), and the rows a nullify rule changed as updates whose properties are not named.
    static func changes(of outcome: BatchDeleteOutcome) -> [RecordedChange] {
        var seen = Set<ObjectID>()
        var changes: [RecordedChange] = []
        for id in outcome.listed + outcome.deleted.sorted(by: { $0.key < $1.key }) + outcome.cascaded where seen.insert(id).inserted {
            changes.append(RecordedChange(type: .delete, entity: id.entity, key: id.key))
        }
        for row in outcome.nullified where !seen.contains(row.id) {
            changes.append(RecordedChange(type: .update, entity: row.id.entity, key: row.id.key))
        }
        return changes
    }

    /// The changes of a batch update: each changed row, with the attributes it set.
    static func changes(ofBatchUpdate rows: [StoreRow], _ names: [String]) -> [RecordedChange] {
        let set = Set(names)
        var bitmaps: [ObjectIdentifier: Data] = [:]
        return rows.map { row in
            let entity = row.id.entity
            let columns = bitmaps[ObjectIdentifier(entity)] ?? HistoryColumns.encode(set, of: entity)
            bitmaps[ObjectIdentifier(entity)] = columns
            return RecordedChange(type: .update, entity: entity, key: row.id.key, columns: columns)
        }
    }
}
