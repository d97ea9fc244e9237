import CSQLite
import Foundation

// SQL functions and collations that every connection gets when it opens, so SQL can compare
// strings exactly as the in-memory evaluator does (both call the same Swift code).
//
// - `og_str(op, options, lhs, rhs)`: 1 when the string comparison holds, else 0; see
//   `StringComparison`. Used for `[c]`, `[d]`, `LIKE` and `MATCHES`.
// - `COLLATE OG_NOCASE`: Unicode case-insensitive order (sort keys with `.caseInsensitive`).
// - `COLLATE OG_LOCALIZED`: Finder-like order (sort keys with `.localizedStandard`).
extension SQLiteConnection {
    func registerFunctions() {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(handle, "og_str", 4, flags, nil, ogStringFunction, nil, nil, nil)
        sqlite3_create_collation_v2(handle, "OG_NOCASE", SQLITE_UTF8, nil, ogNoCaseCollation, nil)
        sqlite3_create_collation_v2(handle, "OG_LOCALIZED", SQLITE_UTF8, nil, ogLocalizedCollation, nil)
        registerPredicateFunctions()
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
