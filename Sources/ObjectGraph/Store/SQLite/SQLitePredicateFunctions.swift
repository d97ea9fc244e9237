import CSQLite
import Foundation

// `og_fn(code, arguments...)`: a predicate function (``PredicateFunction``) in SQL, computed by
// the same Swift code as in memory. Registered on every connection by `registerFunctions()`.
extension SQLiteConnection {
    func registerPredicateFunctions() {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(handle, "og_fn", -1, flags, nil, ogFunction, nil, nil, nil)
    }
}

private func ogFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count >= 1, let values, let function = PredicateFunction.allCases.indices.contains(Int(sqlite3_value_int(values[0])))
            ? PredicateFunction.allCases[Int(sqlite3_value_int(values[0]))] : nil else {
        sqlite3_result_error(context, "og_fn: bad arguments", -1)
        return
    }
    var arguments: [SlotValue] = []
    for index in 1..<Int(count) { arguments.append(slotValue(values[index])) }
    switch function.apply(arguments) {
    case .int(let v): sqlite3_result_int64(context, v)
    case .double(let v): sqlite3_result_double(context, v)
    case .text(let v): sqlite3_result_text(context, v, -1, csqlite_transient())
    default: sqlite3_result_null(context)
    }
}

private func slotValue(_ value: OpaquePointer?) -> SlotValue {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .int(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .double(sqlite3_value_double(value))
    case SQLITE_TEXT:
        guard let pointer = sqlite3_value_text(value) else { return .null }
        return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
    default: return .null
    }
}
