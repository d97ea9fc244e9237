import Foundation

/// SQLite's spelling of what the dialects spell differently (``SQLDialect``): integers for
/// booleans, `IS` for null-safe equality, `substr`/`instr` for plain substring tests (they
/// run at full speed, unlike a function call), a long IN list as one JSON parameter read by
/// `json_each`, predicate functions through `og_fn` (``PredicateFunction`` in Swift),
/// collations `OG_NOCASE` and `OG_LOCALIZED`, and `LIMIT ? OFFSET ?`.
enum SQLiteDialect: SQLDialect {
    static var trueLiteral: String { "1" }
    static var falseLiteral: String { "0" }
    static var isEqual: String { "IS" }
    static var isNotEqual: String { "IS NOT" }

    static func bind(_ value: SQLValue, into arguments: inout [SQLValue]) -> String {
        arguments.append(value)
        return "?"
    }

    /// `?` for every column: a Decimal is written as its nearest double (REAL), as Core Data writes it.
    static func columnPlaceholder(_ type: AttributeType?) -> String { "?" }
    static func columnValue(_ value: SlotValue) -> SQLValue { value.storedValue }

    /// Padded (``ParameterList``), so lists of every length share a few prepared statements.
    static func inList(_ values: [SQLValue], into arguments: inout [SQLValue]) -> String {
        ParameterList.append(values, to: &arguments)
        return ParameterList.placeholders(values.count)
    }

    /// One JSON array: SQLite's limit on parameters never applies.
    static func listParameter(_ values: [SlotValue]) -> (value: SQLValue, elementType: String)? {
        jsonArray(values).map { (.text($0), "") }
    }

    static func inListParameter(_ target: String, elementType: String) -> String {
        "\(target) IN (SELECT value FROM json_each(?))"
    }

    /// `values` as a JSON array when each is a number or text (what `json_each` gives back
    /// as the same SQLite value), else nil.
    static func jsonArray(_ values: [SlotValue]) -> String? {
        var items: [String] = []
        items.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .int(let v): items.append(String(v))
            case .double(let v) where v.isFinite: items.append("\(v)")
            case .decimal(let v) where v.storedDouble.isFinite: items.append("\(v.storedDouble)")
            case .object(let id): items.append(String(id.key))
            case .text(let v):
                guard let data = try? JSONSerialization.data(withJSONObject: [v]), let text = String(data: data, encoding: .utf8) else { return nil }
                items.append(String(text.dropFirst().dropLast()))
            default: return nil
            }
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// 500 keys a chunk, padded (``ParameterList``).
    static func keyConditions(_ column: String, _ keys: [Int64]) -> [(sql: String, arguments: [SQLValue])] {
        keyLists(keys).map { ("\(column) IN (\($0.sql))", $0.arguments) }
    }

    static func keyLists(_ keys: [Int64]) -> [(sql: String, arguments: [SQLValue])] {
        keys.chunks(500).map { chunk in
            var arguments: [SQLValue] = []
            return (inList(chunk.map { .integer($0) }, into: &arguments), arguments)
        }
    }

    static func keyExclusion(_ column: String, _ keys: [Int64]) -> (sql: String, arguments: [SQLValue]) {
        var arguments: [SQLValue] = []
        return ("\(column) NOT IN (\(inList(keys.map { .integer($0) }, into: &arguments)))", arguments)
    }

    /// `substr` and `length` stop at a NUL: such text goes through `og_str`.
    static func searchesSubstring(_ text: String) -> Bool {
        !text.unicodeScalars.contains("\0")
    }

    static func leading(_ text: String, length: Int) -> String { "substr(\(text), 1, \(length))" }
    static func trailing(_ text: String, length: Int) -> String { "substr(\(text), -\(length))" }
    static func position(of search: String, in text: String) -> String { "instr(\(text), \(search))" }

    static func stringComparison(_ code: StringComparison.Code, _ options: StringOptions, _ left: String, _ right: String) -> String {
        "og_str(\(code.rawValue), \(options.rawValue), \(left), \(right))"
    }

    /// `og_fn(code, arguments...)` (SQLitePredicateFunctions).
    static func functionCall(_ function: PredicateFunction, _ arguments: [String]) -> String {
        "og_fn(\(([String(function.code)] + arguments).joined(separator: ", ")))"
    }

    /// Exact Decimal sums and averages through `og_decimal_sum` / `og_decimal_avg`
    /// (``AggregateFunction/sql(of:type:)``), whose text results compare as numbers too.
    static func aggregate(_ function: AggregateFunction, of expression: String, type: AttributeType?, comparable: Bool) -> String {
        function.sql(of: expression, type: type)
    }

    /// Collations apply to text only, so the term names them whatever it sorts.
    static func sortTerm(_ expression: String, isText: Bool, comparison: SortKey.Comparison, ascending: Bool) -> String {
        var term = expression
        switch comparison {
        case .binary: break
        case .caseInsensitive: term += " COLLATE OG_NOCASE"
        case .localizedStandard: term += " COLLATE OG_LOCALIZED"
        }
        return term + (ascending ? " ASC" : " DESC")
    }

    /// Nothing: SQLite sorts NULL first.
    static var nullsFirst: String { "" }

    /// `LIMIT ? OFFSET ?` with its two values bound, so every page of a request shares one
    /// SQL text and one prepared statement.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLValue]) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        arguments += [.integer(Int64(limit > 0 ? limit : -1)), .integer(Int64(max(0, offset)))]
        return " LIMIT ? OFFSET ?"
    }

    static var namesSelectAliases: Bool { true }

    static var keptKeys: String { "temp.og_batch_keys" }

    /// Nothing: the write transaction (`BEGIN IMMEDIATE`) keeps every other writer out.
    static func rowLock(_ alias: String) -> String { "" }
}
