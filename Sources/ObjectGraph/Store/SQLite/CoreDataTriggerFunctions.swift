import CSQLite
import Foundation

// The SQL functions that triggers of stores written by Apple's Core Data call, so that a save
// here fires them as Core Data's own saves do. Core Data keeps derived attributes (`@count`,
// `now()`, values of related rows) up to date with triggers whose SQL does the work and then
// reports each recomputed value to the framework through one of these functions:
//
// - `NSCoreDataDATriggerUpdatedAffectedObjectValue(table, Z_ENT, Z_PK, property, value)`
// - `NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(table, Z_ENT, Z_PK, property, value)`
// - `NSCoreDataTriggerUpdateAffectedObjectValue(table, Z_ENT, Z_PK, property, value)`
// - `NSCoreDataNow()`: the current time as Core Data stores dates (seconds since 2001).
//
// Here a report marks the connection (passed to the function, unretained, as its user data:
// the connection closes its handle, and with it the functions, before it goes away): after
// the save, the coordinator empties its row cache (see `takeRecomputedRows()`), so faults
// read the recomputed values. The mark is a plain field: the function runs inside a
// statement of the connection, on the one thread using it at that moment. Objects already in a
// context, and the rows other contexts merge from the save, keep the values they had until
// refreshed or fetched again, as in Core Data.
extension SQLiteConnection {
    func registerCoreDataTriggerFunctions() {
        let connection = Unmanaged.passUnretained(self).toOpaque()
        for name in ["NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
                     "NSCoreDataTriggerUpdateAffectedObjectValue"] {
            sqlite3_create_function_v2(handle, name, 5, SQLITE_UTF8, connection, coreDataAffectedObjectValue, nil, nil, nil)
        }
        sqlite3_create_function_v2(handle, "NSCoreDataNow", 0, SQLITE_UTF8, nil, coreDataNow, nil, nil, nil)
    }

    /// Whether a Core Data trigger recomputed a stored value through this connection since
    /// the last call; clears the mark.
    func takeRecomputedRows() -> Bool {
        defer { recomputedRows = false }
        return recomputedRows
    }
}

private func coreDataAffectedObjectValue(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    if let connection = sqlite3_user_data(context) {
        Unmanaged<SQLiteConnection>.fromOpaque(connection).takeUnretainedValue().recomputedRows = true
    }
    sqlite3_result_int(context, 1)
}

private func coreDataNow(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    sqlite3_result_double(context, Date().timeIntervalSinceReferenceDate)
}
