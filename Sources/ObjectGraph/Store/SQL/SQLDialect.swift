import Foundation

/// How a SQL store spells what SQLite and PostgreSQL spell differently, and nothing else: the
/// one place the two stores' SQL differs (modelled on sql-kit's `SQLDialect`). The shared SQL
/// code (``SQLPredicateCompiler``, ``SQLSelect``, ``SQLHavingCompiler``, ``SQLBatchDeleter``)
/// is generic over it; ``SQLiteDialect`` and ``PostgresDialect`` are the two dialects.
///
/// Identifiers are not quoted in either dialect: every table and column name comes from the
/// store layout (Core Data's `Z…` names), never from input.
protocol SQLDialect {
    // MARK: Literals and equality

    /// The boolean literals (`1`/`0` in SQLite, `TRUE`/`FALSE` in PostgreSQL).
    static var trueLiteral: String { get }
    static var falseLiteral: String { get }
    /// Null-safe equality and inequality: nil equals nil (`IS` / `IS NOT DISTINCT FROM`).
    static var isEqual: String { get }
    static var isNotEqual: String { get }

    // MARK: Parameters

    /// The SQL standing for `value`: a `?` with `value` appended to `arguments`, or a literal
    /// (PostgreSQL spells NULL, which an untyped parameter cannot stand for everywhere).
    static func bind(_ value: SQLValue, into arguments: inout [SQLValue]) -> String
    /// The contents of `IN (...)` naming `values` (none null), appended to `arguments`.
    static func inList(_ values: [SQLValue], into arguments: inout [SQLValue]) -> String
    /// A long list (over 100 values, none null) as one parameter, and the SQL type of its
    /// elements; nil when the values cannot be sent so.
    static func listParameter(_ values: [SlotValue]) -> (value: SQLValue, elementType: String)?
    /// A condition that `target` is one of the list bound by ``listParameter(_:)`` (`?`).
    static func inListParameter(_ target: String, elementType: String) -> String

    /// The placeholder for a value written into the column of an attribute of `type`
    /// (INSERT, UPDATE): `?`, or PostgreSQL's `CAST(? AS numeric)` for a Decimal, which
    /// ``columnValue(_:)`` sends as its exact text.
    static func columnPlaceholder(_ type: AttributeType?) -> String
    /// A slot value as written into its column (in the place of ``columnPlaceholder(_:)``).
    static func columnValue(_ value: SlotValue) -> SQLValue

    // MARK: Keys

    /// A condition that `column` is one of `keys`, and its arguments, per chunk.
    static func keyConditions(_ column: String, _ keys: [Int64]) -> [(sql: String, arguments: [SQLValue])]
    /// What `IN (...)` holds to name `keys`, and its arguments, per chunk.
    static func keyLists(_ keys: [Int64]) -> [(sql: String, arguments: [SQLValue])]
    /// A condition that `column` is none of `keys` (not empty), and its arguments.
    static func keyExclusion(_ column: String, _ keys: [Int64]) -> (sql: String, arguments: [SQLValue])

    // MARK: Strings

    /// Whether BEGINSWITH, ENDSWITH and CONTAINS can search for `text` with the dialect's
    /// substring functions (else the comparison goes through `og_str`).
    static func searchesSubstring(_ text: String) -> Bool
    /// The first `length` Unicode scalars of `text` (for BEGINSWITH).
    static func leading(_ text: String, length: Int) -> String
    /// The last `length` Unicode scalars of `text` (for ENDSWITH).
    static func trailing(_ text: String, length: Int) -> String
    /// Where `search` starts in `text`, from 1; 0 when it does not occur (for CONTAINS).
    static func position(of search: String, in text: String) -> String
    /// `og_str`, the Swift ``StringComparison`` registered in (or created by) the store, for a
    /// comparison with options, LIKE or MATCHES.
    static func stringComparison(_ code: StringComparison.Code, _ options: StringOptions, _ left: String, _ right: String) -> String

    // MARK: Functions

    /// A predicate function (not `+`, `-` or `*`) over the SQL of its arguments.
    static func functionCall(_ function: PredicateFunction, _ arguments: [String]) -> String
    /// An aggregate over `expression` (of `type`; nil for a to-one), as the store reads its
    /// result; with `comparable`, the value as a number a HAVING clause compares instead.
    static func aggregate(_ function: AggregateFunction, of expression: String, type: AttributeType?, comparable: Bool) -> String

    // MARK: Sorting and paging

    /// One `ORDER BY` term: `expression` (text when `isText`) in the order of `comparison`.
    /// NULL sorts first ascending and last descending in both dialects.
    static func sortTerm(_ expression: String, isText: Bool, comparison: SortKey.Comparison, ascending: Bool) -> String
    /// What follows a column in `ORDER BY` so that NULL sorts first (empty when it does anyway).
    static var nullsFirst: String { get }
    /// The clause for a page (`limit` 0: no limit), its values appended to `arguments`, or nothing.
    static func pagingClause(limit: Int, offset: Int, arguments: inout [SQLValue]) -> String
    /// Whether `WHERE` and `HAVING` may name the select list's aliases (else they repeat the
    /// aliased expression).
    static var namesSelectAliases: Bool { get }

    // MARK: Batch requests

    /// The temporary table a batch delete keeps its selection in (one `pk` column).
    static var keptKeys: String { get }
    /// The clause ending a `SELECT` that locks the rows it reads of the table aliased `alias`
    /// until the transaction ends (empty when the write transaction already excludes every
    /// other writer). A row another transaction changed meanwhile is read again and kept only
    /// when it still meets the `WHERE` clause, so what the batch writes still matches.
    static func rowLock(_ alias: String) -> String
}

extension SQLDialect {
    /// The literal for `value`.
    static func literal(_ value: Bool) -> String { value ? trueLiteral : falseLiteral }

    /// `ORDER BY` term for a sort key, whose path tells whether it sorts text.
    static func sortTerm(_ expression: String, _ key: BoundSortKey) -> String {
        sortTerm(expression, isText: key.path.endsAtText, comparison: key.comparison, ascending: key.ascending)
    }
}

extension BoundPath {
    /// Whether the path ends at a text attribute (the only values collations apply to).
    var endsAtText: Bool {
        guard case .attribute(let attribute) = terminal else { return false }
        return attribute.attributeType == .string || attribute.attributeType == .uri
    }
}
