import Foundation

/// PostgreSQL's spelling of what the dialects spell differently (``SQLDialect``): boolean
/// literals, `IS NOT DISTINCT FROM` for null-safe equality, NULL spelled (an untyped NULL
/// parameter cannot be typed by the server in every position), `left`/`right`/`strpos` for
/// plain substring tests, long lists and key lists as one array parameter (`= ANY(?::bigint[])`),
/// predicate functions as the schema's `og_` functions (PostgresSchema+Functions), `NULLS
/// FIRST`/`LAST` so NULL sorts as in SQLite, and row locks for batch requests.
enum PostgresDialect: SQLDialect {
    /// NULL is spelled: an untyped NULL parameter cannot be typed by the server in every position.
    static func bind(_ value: SQLValue, into arguments: inout [SQLValue]) -> String {
        if case .null = value { return "NULL" }
        arguments.append(value)
        return "?"
    }

    /// A Decimal's column is `numeric`: its value is sent as its exact text and cast there
    /// (a `double precision` parameter would keep 15 digits).
    static func columnPlaceholder(_ type: AttributeType?) -> String { type == .decimal ? "CAST(? AS numeric)" : "?" }

    static func columnValue(_ value: SlotValue) -> SQLValue {
        if case .decimal(let decimal) = value { return .text(decimal.description) }
        return value.storedValue
    }

    static func inList(_ values: [SQLValue], into arguments: inout [SQLValue]) -> String {
        values.map { bind($0, into: &arguments) }.joined(separator: ", ")
    }

    /// Conditions are booleans, not integers.
    static var trueLiteral: String { "TRUE" }
    static var falseLiteral: String { "FALSE" }
    /// SQL's null-safe comparison: PostgreSQL's `IS` compares with NULL, TRUE or FALSE only.
    static var isEqual: String { "IS NOT DISTINCT FROM" }
    static var isNotEqual: String { "IS DISTINCT FROM" }

    /// One array parameter: the protocol's limit on parameters never applies.
    static func listParameter(_ values: [SlotValue]) -> (value: SQLValue, elementType: String)? {
        arrayParameter(values).map { (.text($0.literal), $0.type) }
    }

    static func inListParameter(_ target: String, elementType: String) -> String {
        "\(target) = ANY(?::\(elementType)[])"
    }

    /// `values` as the text of a PostgreSQL array literal and its element type, when every
    /// value is an integer (or object ID), every one a double, every one a Decimal (exact
    /// `numeric` text), or every one text; else nil.
    static func arrayParameter(_ values: [SlotValue]) -> (literal: String, type: String)? {
        var items: [String] = []
        items.reserveCapacity(values.count)
        var type: String?
        func accept(_ kind: String) -> Bool {
            if type == nil { type = kind }
            return type == kind
        }
        for value in values {
            switch value {
            case .int(let v) where accept("bigint"): items.append(String(v))
            case .object(let id) where accept("bigint"): items.append(String(id.key))
            case .double(let v) where v.isFinite && accept("double precision"): items.append("\(v)")
            case .decimal(let v) where !v.isNaN && accept("numeric"): items.append(v.description)
            case .text(let v) where accept("text"):
                items.append("\"" + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"")
            default: return nil
            }
        }
        guard let type else { return nil }
        return ("{" + items.joined(separator: ",") + "}", type)
    }

    /// `keys` as the text of a `bigint[]` parameter.
    static func keyArray<S: Sequence<Int64>>(_ keys: S) -> String {
        "{" + keys.map(String.init).joined(separator: ",") + "}"
    }

    /// 5000 keys a chunk, each chunk one `bigint[]` parameter.
    static func keyConditions(_ column: String, _ keys: [Int64]) -> [(sql: String, arguments: [SQLValue])] {
        keys.chunks(5000).map { ("\(column) = ANY(?::bigint[])", [.text(keyArray($0))]) }
    }

    static func keyLists(_ keys: [Int64]) -> [(sql: String, arguments: [SQLValue])] {
        keys.chunks(5000).map { ("SELECT unnest(?::bigint[])", [.text(keyArray($0))]) }
    }

    static func keyExclusion(_ column: String, _ keys: [Int64]) -> (sql: String, arguments: [SQLValue]) {
        ("\(column) <> ALL(?::bigint[])", [.text(keyArray(keys))])
    }

    /// `og_str` over text: its arguments may be any type the comparison reaches.
    static func stringComparison(_ code: StringComparison.Code, _ options: StringOptions, _ left: String, _ right: String) -> String {
        "og_str(\(code.rawValue), \(options.rawValue), (\(left))::text, (\(right))::text)"
    }

    /// Always: PostgreSQL's text holds no NUL.
    static func searchesSubstring(_ text: String) -> Bool { true }
    static func leading(_ text: String, length: Int) -> String { "left(\(text), \(length))" }
    static func trailing(_ text: String, length: Int) -> String { "right(\(text), \(length))" }
    static func position(of search: String, in text: String) -> String { "strpos(\(text), \(search))" }

    /// The schema's function computing `function` (PostgresSchema+Functions), over `arguments`.
    static func functionCall(_ function: PredicateFunction, _ arguments: [String]) -> String {
        "\(functionName(function))(\(arguments.joined(separator: ", ")))"
    }

    /// The name of the schema's function computing `function`.
    static func functionName(_ function: PredicateFunction) -> String {
        switch function {
        case .add, .subtract, .multiply: return ""
        case .divide: return "og_divide"
        case .modulus: return "og_mod"
        case .power: return "og_power"
        case .abs: return "og_abs"
        case .sqrt: return "og_sqrt"
        case .log: return "og_log"
        case .ln: return "og_ln"
        case .exp: return "og_exp"
        case .floor: return "og_floor"
        case .ceiling: return "og_ceiling"
        case .trunc: return "og_trunc"
        case .bitwiseAnd: return "og_band"
        case .bitwiseOr: return "og_bor"
        case .bitwiseXor: return "og_bxor"
        case .leftShift: return "og_shl"
        case .rightShift: return "og_shr"
        case .onesComplement: return "og_bnot"
        case .lowercase: return "og_lower"
        case .uppercase: return "og_upper"
        case .length: return "og_length"
        }
    }

    /// Decimals summed exactly in `numeric` (their columns' type; a `double precision`
    /// column of an older schema read as its 15 significant digits, as `Decimal.fromStored`
    /// reads it) and returned as text, their average as the
    /// text `"<sum> <count>"` that Swift divides as a Decimal (as the SQLite store's
    /// `og_decimal_avg` does); sums of integers as bigint. With `comparable`, a Decimal's sum
    /// and average stay `numeric`.
    static func aggregate(_ function: AggregateFunction, of expression: String, type: AttributeType?, comparable: Bool) -> String {
        switch (function, type) {
        case (.sum, .decimal?): return comparable ? "SUM((\(expression))::numeric)" : "(SUM((\(expression))::numeric))::text"
        case (.average, .decimal?):
            if comparable { return "AVG((\(expression))::numeric)" }
            return "(SUM((\(expression))::numeric))::text || ' ' || (COUNT(\(expression)))::text"
        case (.sum, .integer16?), (.sum, .integer32?), (.sum, .integer64?), (.sum, .boolean?):
            return "(SUM(\(expression)))::bigint"
        case (.average, _): return "(AVG(\(expression)))::double precision"
        default: return "\(function.sqlName)(\(expression))"
        }
    }

    /// Text is in code-point order (its columns are `COLLATE "C"`); case-insensitive order
    /// compares `og_fold`ed text (ties in no particular order, as with SQLite's OG_NOCASE);
    /// localized order uses ICU's root collation, numeric, ignoring case and diacritics
    /// (`og_localized`), close to Foundation's `localizedStandardCompare`.
    static func sortTerm(_ expression: String, isText: Bool, comparison: SortKey.Comparison, ascending: Bool) -> String {
        var term = expression
        if isText {
            switch comparison {
            case .binary: break
            case .caseInsensitive: term = "og_fold((\(expression))::text, 1)"
            case .localizedStandard: term = "(\(expression))::text COLLATE og_localized"
            }
        }
        return term + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }

    static var nullsFirst: String { " NULLS FIRST" }

    /// `LIMIT ?` (when there is a limit) and `OFFSET ?`.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLValue]) -> String {
        guard limit > 0 || offset > 0 else { return "" }
        var clause = ""
        if limit > 0 {
            clause += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
        }
        clause += " OFFSET ?"
        arguments.append(.integer(Int64(max(0, offset))))
        return clause
    }

    static var namesSelectAliases: Bool { false }

    /// A temporary table of the session, emptied at commit.
    static var keptKeys: String { "pg_temp.og_batch_keys" }

    /// `FOR UPDATE OF alias`: at READ COMMITTED, a row another transaction holds is waited
    /// for, then its committed version is checked against the `WHERE` clause again
    /// (PostgreSQL's EvalPlanQual), so a row moved out of the predicate meanwhile is skipped.
    static func rowLock(_ alias: String) -> String { " FOR UPDATE OF \(alias)" }
}
