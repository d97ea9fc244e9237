import Foundation

/// Which column of the old store holds an entity's property. Sub-entities of one root that
/// declare properties of the same name share the root's table with columns `ZNAME`, `ZNAME1`,
/// ...: the column is the one the store gave that entity, never a sibling's.
extension SourceSchema {
    /// The column holding the old property called `names[0]` (else `names[1]`, ...) in the
    /// rows of `entity`, or nil when those rows have none.
    ///
    /// A store that records its model (written here) says exactly. For one that does not (a
    /// store of Apple's Core Data), the candidates are `Z<NAME>` and `Z<NAME><n>`. One
    /// candidate is taken (it may be inherited, and used by siblings too). Of several, the
    /// values decide: the column holding values in `entity`'s rows, else one that no entity
    /// outside `entity`'s line uses (its rows are all nil then, whichever column it was).
    func column(of names: [String], in entity: Entity) -> String? {
        let table = table(of: entity)
        if let layout = recordedLayout {
            guard let recorded = layout.model.entitiesByName[entity.modelName] else { return nil }
            for name in names {
                guard let property = recorded.property(named: name) else { continue }
                return layout.mappings[recorded.index].columnBySlot[property.slot]
            }
            return nil
        }
        var candidates: [String] = []
        for name in names {
            let exact = "Z" + name.uppercased()
            if columnType(exact, in: table) != nil { candidates.append(exact) }
            for column in (columns[table.uppercased()] ?? [:]).keys.sorted() where column.hasPrefix(exact) {
                let suffix = column.dropFirst(exact.count)
                if !suffix.isEmpty, suffix.allSatisfy(\.isNumber), !candidates.contains(column) { candidates.append(column) }
            }
        }
        guard candidates.count > 1 else { return candidates.first }
        let own = family(of: entity)
        let related = lineage(of: entity)
        if let used = candidates.first(where: { usage.valueCount(column: $0, table: table) { own.contains($0) } > 0 }) {
            return used
        }
        return candidates.first { usage.valueCount(column: $0, table: table) { !related.contains($0) } == 0 }
    }
}

/// How many rows of each entity hold a value in each column of the old store's tables: one
/// scan per table, made when first asked. It tells same-named columns apart in a store that
/// does not record its model, and which values a migration would drop.
///
/// Not thread-safe: used while one migration is planned, on the thread that plans it.
final class ColumnUsage {
    private let connection: any MigrationSource
    /// The old store's columns, by table (``SourceSchema/columns``).
    private let columns: [String: [String: String]]
    /// Non-NULL values by column (uppercased), by entity number, by table (uppercased).
    private var counts: [String: [Int64: [String: Int]]] = [:]
    /// Rows by entity number, by table (uppercased).
    private var rows: [String: [Int64: Int]] = [:]
    /// The error of a scan that failed: the plan that asked throws it.
    private(set) var failure: (any Error)?

    init(connection: any MigrationSource, columns: [String: [String: String]]) {
        self.connection = connection
        self.columns = columns
    }

    /// Values in `column` of `table`, in rows of the entities `includes` accepts.
    func valueCount(column: String, table: String, entities includes: (Int64) -> Bool) -> Int {
        load(table)
        return (counts[table.uppercased()] ?? [:]).reduce(0) { total, entry in
            includes(entry.key) ? total + (entry.value[column.uppercased()] ?? 0) : total
        }
    }

    /// Columns of `table` with values in rows of entity `number`, with their counts.
    func valueCounts(table: String, entity number: Int64) -> [String: Int] {
        load(table)
        return counts[table.uppercased()]?[number] ?? [:]
    }

    /// Rows of `table`, whatever their entity (a join table's rows).
    func rowCount(of table: String) -> Int {
        do {
            if case .integer(let count)? = try connection.scalar("SELECT count(*) FROM \(connection.dialect.quote(table))") { return Int(count) }
        } catch {
            failure = failure ?? error
        }
        return 0
    }

    /// Rows of entity `number` in `table`.
    func rowCount(table: String, entity number: Int64) -> Int {
        load(table)
        return rows[table.uppercased()]?[number] ?? 0
    }

    private func load(_ table: String) {
        let key = table.uppercased()
        guard counts[key] == nil else { return }
        counts[key] = [:]
        rows[key] = [:]
        let names = (self.columns[key] ?? [:]).keys.sorted()
        guard names.contains(where: { $0.uppercased() == "Z_ENT" }) else { return }
        let columns = names.filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0.uppercased()) }
        let quote = connection.dialect.quote
        let sums = columns.map { "count(\(quote($0)))" }
        let sql = "SELECT Z_ENT, count(*)\(sums.map { ", " + $0 }.joined()) FROM \(quote(table)) GROUP BY Z_ENT"
        var tableCounts: [Int64: [String: Int]] = [:]
        var tableRows: [Int64: Int] = [:]
        do {
            for row in try connection.rows(sql, []) {
                let number = row[0].plannedInteger
                tableRows[number] = Int(row[1].plannedInteger)
                var values: [String: Int] = [:]
                for (index, column) in columns.enumerated() {
                    let count = Int(row[index + 2].plannedInteger)
                    if count > 0 { values[column.uppercased()] = count }
                }
                tableCounts[number] = values
            }
        } catch {
            failure = failure ?? error
        }
        counts[key] = tableCounts
        rows[key] = tableRows
    }
}
