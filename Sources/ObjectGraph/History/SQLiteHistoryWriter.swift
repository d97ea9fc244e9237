import Foundation

/// Writes one transaction of persistent history, with its changes, in the write
/// transaction of the save or batch request it describes: both commit together or not at
/// all, so no transaction is without its changes and no change without its save.
struct SQLiteHistoryWriter {
    /// One changed row.
    struct Change {
        var type: HistoryChangeType
        var entity: EntityDescription
        var key: Int64
        /// `ZCOLUMNS` for an update (nil: not known).
        var columns: Data?
    }

    let connection: SQLiteConnection
    let layout: StoreLayout
    let schema: HistorySchema

    /// The bundle identifier recorded: the executable's name (there are no bundles here).
    static let bundleID = ProcessInfo.processInfo.processName
    /// The process recorded: its process ID in decimal.
    static let processID = String(ProcessInfo.processInfo.processIdentifier)

    /// Records `changes` as one transaction and returns its number; nil (nothing written)
    /// when there are none.
    func record(_ changes: [Change], author: String?, contextName: String?, at date: Date = Date()) throws -> Int64? {
        guard !changes.isEmpty else { return nil }
        let number = try connection.reserveHistoryKeys(1, number: HistorySchema.transactionEntity, name: "TRANSACTION",
                                                       table: "ATRANSACTION") + 1
        var columns = ["Z_PK", "Z_ENT"]
        var values: [SQLValue] = [.integer(number), .integer(HistorySchema.transactionEntity)]
        let strings = ["AUTHOR": author, "BUNDLEID": Self.bundleID, "CONTEXTNAME": contextName, "PROCESSID": Self.processID]
        for field in HistorySchema.stringFields {
            guard let text = strings[field] ?? nil else { continue }
            if schema.transactionColumns.contains("Z\(field)TS") {
                columns.append("Z\(field)TS")
                values.append(.integer(try intern(text)))
            } else if schema.transactionColumns.contains("Z\(field)") {
                columns.append("Z\(field)")
                values.append(.text(text))
            }
        }
        if schema.transactionColumns.contains("ZTIMESTAMP") {
            columns.append("ZTIMESTAMP")
            values.append(.real(date.timeIntervalSinceReferenceDate))
        }
        try connection.run("INSERT INTO ATRANSACTION (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                           values)
        try insertChanges(changes, transaction: number)
        return number
    }

    private func insertChanges(_ changes: [Change], transaction: Int64) throws {
        var key = try connection.reserveHistoryKeys(changes.count, number: HistorySchema.changeEntity, name: "CHANGE", table: "ACHANGE")
        let hasColumns = schema.changeColumns.contains("ZCOLUMNS")
        let sql = hasColumns
            ? "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, ?, ?, ?, ?, ?, ?)"
            : "INSERT INTO ACHANGE (Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (?, ?, ?, ?, ?, ?)"
        for change in changes {
            key += 1
            var values: [SQLValue] = [.integer(key), .integer(HistorySchema.changeEntity), .integer(change.type.rawValue),
                                      .integer(layout.numbers[change.entity.name]!), .integer(change.key), .integer(transaction)]
            if hasColumns { values.append(change.columns.map { .blob($0) } ?? .null) }
            try connection.run(sql, values)
        }
    }

    /// The key of `text` in `ATRANSACTIONSTRING`, adding it when new.
    private func intern(_ text: String) throws -> Int64 {
        if case .integer(let key)? = try connection.scalar("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", [.text(text)]) {
            return key
        }
        let key = try connection.reserveHistoryKeys(1, number: HistorySchema.stringEntity, name: "TRANSACTIONSTRING",
                                                    table: "ATRANSACTIONSTRING") + 1
        try connection.run("INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
                           [.integer(key), .integer(HistorySchema.stringEntity), .text(text)])
        return key
    }
}

extension SQLiteHistoryWriter {
    /// The changes of a save as the store wrote it: every insert with its new key, every
    /// update (but those whose rows someone else deleted) with the properties it wrote, and
    /// every delete.
    static func changes(of save: SaveRequest, _ outcome: SaveOutcome) -> [Change] {
        var changes: [Change] = []
        changes.reserveCapacity(save.inserted.count + save.updated.count + save.deleted.count)
        for object in save.inserted {
            changes.append(Change(type: .insert, entity: object.entity, key: outcome.keys.storedKey(object.objectID)))
        }
        let vanished = Set(outcome.vanished.map(ObjectIdentifier.init))
        for update in save.updated where !vanished.contains(ObjectIdentifier(update.object)) {
            let entity = update.object.entity
            changes.append(Change(type: .update, entity: entity, key: update.object.objectID.key,
                                  columns: HistoryColumns.encode(update.changes, of: entity)))
        }
        for object in save.deleted {
            changes.append(Change(type: .delete, entity: object.entity, key: object.objectID.key))
        }
        return changes
    }
}

extension SQLiteHistoryWriter {
    /// The changes of a batch delete: every deleted row (selected, or reached by a cascade
    /// rule), and the rows a nullify rule changed as updates whose properties are not named.
    static func changes(of outcome: BatchDeleteOutcome) -> [Change] {
        var seen = Set<ObjectID>()
        var changes: [Change] = []
        for id in outcome.listed + outcome.deleted.sorted(by: { $0.key < $1.key }) + outcome.cascaded where seen.insert(id).inserted {
            changes.append(Change(type: .delete, entity: id.entity, key: id.key))
        }
        for row in outcome.nullified where !seen.contains(row.id) {
            changes.append(Change(type: .update, entity: row.id.entity, key: row.id.key))
        }
        return changes
    }

    /// The changes of a batch update: each changed row, with the attributes it set.
    static func changes(ofBatchUpdate rows: [StoreRow], _ names: [String]) -> [Change] {
        let set = Set(names)
        var bitmaps: [ObjectIdentifier: Data] = [:]
        return rows.map { row in
            let entity = row.id.entity
            let columns = bitmaps[ObjectIdentifier(entity)] ?? HistoryColumns.encode(set, of: entity)
            bitmaps[ObjectIdentifier(entity)] = columns
            return Change(type: .update, entity: entity, key: row.id.key, columns: columns)
        }
    }
}
