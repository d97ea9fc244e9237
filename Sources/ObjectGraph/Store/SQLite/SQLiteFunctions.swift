import CSQLite
import Foundation

// SQL functions and collations that every connection gets when it opens, so SQL can compare
// strings exactly as the in-memory evaluator does (both call the same Swift code).
//
// - `og_str(op, options, lhs, rhs)`: 1 when the string comparison holds, else 0; see
//   `StringComparison`. Used for `[c]`, `[d]`, `LIKE` and `MATCHES`.
// - `COLLATE OG_NOCASE`: Unicode case-insensitive order (sort keys with `.caseInsensitive`).
// - `COLLATE OG_LOCALIZED`: Finder-like order (sort keys with `.localizedStandard`).
// - `og_decimal_sum(x)`, `og_decimal_avg(x)`: the exact sum and mean of Decimal attributes
//   (stored as REAL), as text; see `AggregateFunction.sql(of:type:)`.
// - The functions triggers of Apple's stores call: see CoreDataTriggerFunctions.swift.
extension SQLiteConnection {
    func registerFunctions() {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(handle, "og_str", 4, flags, nil, ogStringFunction, nil, nil, nil)
        sqlite3_create_function_v2(handle, "og_decimal_sum", 1, flags, nil, nil, ogDecimalStep, ogDecimalSumFinal, nil)
        sqlite3_create_function_v2(handle, "og_decimal_avg", 1, flags, nil, nil, ogDecimalStep, ogDecimalAverageFinal, nil)
        sqlite3_create_collation_v2(handle, "OG_NOCASE", SQLITE_UTF8, nil, ogNoCaseCollation, nil)
        sqlite3_create_collation_v2(handle, "OG_LOCALIZED", SQLITE_UTF8, nil, ogLocalizedCollation, nil)
        registerPredicateFunctions()
        registerCoreDataTriggerFunctions()
    }
}

private func text(_ value: OpaquePointer?) -> String? {
    guard sqlite3_value_type(value) != SQLITE_NULL, let pointer = sqlite3_value_text(value) else { return nil }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
}

private func ogStringFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 4, let values,
          let code = StringComparison.Code(rawValue: sqlite3_value_int(values[0])) else {
        sqlite3_result_error(context, "og_str: bad arguments", -1)
        return
    }
    let options = StringOptions(rawValue: sqlite3_value_int(values[1]))
    let result = StringComparison.evaluate(code, options, text(values[2]), text(values[3]))
    sqlite3_result_int(context, result ? 1 : 0)
}

private func collationText(_ count: Int32, _ bytes: UnsafeRawPointer?) -> String {
    guard let bytes, count > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
}

private func ogNoCaseCollation(_: UnsafeMutableRawPointer?, _ countA: Int32, _ a: UnsafeRawPointer?, _ countB: Int32, _ b: UnsafeRawPointer?) -> Int32 {
    Int32(TextOrder.caseInsensitive(collationText(countA, a), collationText(countB, b)).rawValue)
}

private func ogLocalizedCollation(_: UnsafeMutableRawPointer?, _ countA: Int32, _ a: UnsafeRawPointer?, _ countB: Int32, _ b: UnsafeRawPointer?) -> Int32 {
    Int32(TextOrder.localizedStandard(collationText(countA, a), collationText(countB, b)).rawValue)
}

/// The running state of `og_decimal_sum` / `og_decimal_avg`, in memory SQLite zeroes and
/// frees (`sqlite3_aggregate_context`): plain values only, so no deinitialization is needed.
private struct DecimalAccumulator {
    var started: Bool
    var count: Int64
    var sum: Decimal
}

private func decimalAccumulator(_ context: OpaquePointer?) -> UnsafeMutablePointer<DecimalAccumulator>? {
    assert(_isPOD(DecimalAccumulator.self), "DecimalAccumulator lives in memory SQLite frees without deinitializing it")
    guard let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<DecimalAccumulator>.stride)) else { return nil }
    return raw.bindMemory(to: DecimalAccumulator.self, capacity: 1)
}

/// Adds one value as the Decimal it stands for: a REAL rounded to the 15 significant digits
/// it was stored with, an INTEGER as is, TEXT parsed (a store written by other software).
private func ogDecimalStep(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 1, let value = values?[0] else { return sqlite3_result_error(context, "og_decimal: bad arguments", -1) }
    let addend: Decimal
    switch sqlite3_value_type(value) {
    case SQLITE_NULL: return
    case SQLITE_INTEGER: addend = Decimal(sqlite3_value_int64(value))
    case SQLITE_FLOAT: addend = Decimal.fromStored(sqlite3_value_double(value))
    default:
        guard let parsed = text(value).flatMap({ Decimal(string: $0) }) else {
            return sqlite3_result_error(context, "og_decimal: '\(text(value) ?? "?")' is not a number", -1)
        }
        addend = parsed
    }
    guard let state = decimalAccumulator(context) else { return sqlite3_result_error_nomem(context) }
    if !state.pointee.started { state.initialize(to: DecimalAccumulator(started: true, count: 0, sum: 0)) }
    state.pointee.sum += addend
    state.pointee.count += 1
}

private func decimalResult(_ context: OpaquePointer?, _ value: Decimal) {
    let text = "\(value)"
    sqlite3_result_text(context, text, -1, csqlite_transient())
}

private func ogDecimalSumFinal(_ context: OpaquePointer?) {
    guard let state = decimalAccumulator(context), state.pointee.started else { return sqlite3_result_null(context) }
    decimalResult(context, state.pointee.sum)
}

private func ogDecimalAverageFinal(_ context: OpaquePointer?) {
    guard let state = decimalAccumulator(context), state.pointee.started else { return sqlite3_result_null(context) }
    decimalResult(context, state.pointee.sum / Decimal(state.pointee.count))
}
