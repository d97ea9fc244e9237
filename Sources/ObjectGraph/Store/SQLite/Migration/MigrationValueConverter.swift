import CSQLite
import Foundation

/// Converts stored values to an attribute's new type during a migration, as Core Data's
/// lightweight migration does: integer widths, integer ↔ floating point ↔ decimal, numbers ↔
/// text, booleans from numbers and from `YES`/`NO`/`true`/`false`. Registered on the
/// migration connection as the SQL function `og_migrate(value, key, target)`, so each
/// `INSERT ... SELECT` converts row by row inside SQLite; a value that does not convert (or a
/// missing value the new model requires) stops the statement and is recorded in ``failure``.
///
/// Not thread-safe: used by the one connection of one migration.
final class MigrationValueConverter {
    /// One attribute that values are converted for.
    struct Target {
        let entity: String
        let property: String
        let type: AttributeType
        /// A NULL stops the migration: the attribute is required and has no default.
        let isRequired: Bool
    }

    /// The failure that stopped the last statement, if a conversion stopped it.
    struct Failure {
        let code: MigrationError.Code
        let entity: String
        let property: String
        let message: String
    }

    private(set) var targets: [Target] = []
    var failure: Failure?
    /// For a forecast: a value that does not convert is recorded in ``collected`` and
    /// becomes NULL, so the copy goes on and every such value is found.
    var collectsFailures = false
    private(set) var collected: [MigrationForecast.ValueFailure] = []

    /// Registers `target` and returns the index the SQL passes as `og_migrate`'s third argument.
    func add(_ target: Target) -> Int {
        targets.append(target)
        return targets.count - 1
    }

    /// Makes `og_migrate` callable on `connection`, for as long as this converter lives.
    func register(on connection: SQLiteConnection) {
        // Unmanaged: the migration owns this converter and the connection, and closes the
        // connection before the converter goes away, so the unretained pointer stays valid.
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_create_function_v2(connection.handle, "og_migrate", 3, SQLITE_UTF8, context, ogMigrateFunction, nil, nil, nil)
    }

    // MARK: Rules

    /// The kind of value a column's declared type holds.
    enum ColumnKind { case integer, real, date, text, blob }

    static func kind(ofColumnType declared: String) -> ColumnKind? {
        let type = declared.uppercased()
        if type.hasPrefix("INT") { return .integer }
        if type.hasPrefix("FLOAT") || type.hasPrefix("REAL") || type.hasPrefix("DOUBLE") || type.hasPrefix("DECIMAL") { return .real }
        if type.hasPrefix("TIMESTAMP") { return .date }
        if type.hasPrefix("VARCHAR") || type.hasPrefix("TEXT") { return .text }
        if type.hasPrefix("BLOB") { return .blob }
        return nil
    }

    static func kind(of type: AttributeType) -> ColumnKind {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return .integer
        case .double, .float, .decimal: return .real
        case .date: return .date
        case .string, .uri: return .text
        case .binary, .uuid, .transformable: return .blob
        }
    }

    /// Whether Core Data infers a conversion from a column of `declared` type to `type`.
    static func isInferable(from declared: String, to type: AttributeType) -> Bool {
        guard let source = kind(ofColumnType: declared) else { return false }
        switch kind(of: type) {
        case .integer, .real: return [.integer, .real, .text].contains(source)
        case .text: return type == .uri ? source == .text : [.integer, .real, .text].contains(source)
        case .date: return source == .date
        case .blob: return source == .blob
        }
    }

    /// Whether values of a `declared` column can be copied as they are into `type`'s column.
    static func copiesUnchanged(from declared: String, to type: AttributeType) -> Bool {
        guard kind(ofColumnType: declared) == kind(of: type) else { return false }
        return ![.integer16, .integer32, .boolean, .uuid, .uri].contains(type)
    }

    /// `value` as `type` stores it, or nil when it does not convert. Blank text becomes
    /// NULL for a number or a boolean.
    static func convert(_ value: SQLValue, to type: AttributeType) -> SQLValue? {
        if case .null = value { return .null }
        // Text with nothing in it is no value for a number, as for Foundation's formatters.
        if case .text(let s) = value, kind(of: type) != .text, s.trimmingCharacters(in: .whitespaces).isEmpty { return .null }
        switch type {
        case .integer16: return integer(value, in: Int64(Int16.min)...Int64(Int16.max))
        case .integer32: return integer(value, in: Int64(Int32.min)...Int64(Int32.max))
        case .integer64: return integer(value, in: Int64.min...Int64.max)
        case .boolean: return boolean(value)
        case .double, .float, .decimal, .date: return real(value)
        case .string: return text(value)
        case .uri:
            guard case .text(let string) = value, URL(string: string) != nil else { return nil }
            return value
        case .uuid:
            guard case .blob(let data) = value, data.count == 16 else { return nil }
            return value
        case .binary, .transformable:
            guard case .blob = value else { return nil }
            return value
        }
    }

    private static func integer(_ value: SQLValue, in range: ClosedRange<Int64>) -> SQLValue? {
        switch value {
        case .integer(let v): return range.contains(v) ? value : nil
        case .real(let d):
            guard d.isFinite, let v = Int64(exactly: d.rounded(.towardZero)), range.contains(v) else { return nil }
            return .integer(v)
        case .text(let s):
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            if let v = Int64(trimmed) { return range.contains(v) ? .integer(v) : nil }
            guard let d = Double(trimmed) else { return nil }
            return integer(.real(d), in: range)
        default: return nil
        }
    }

    private static func boolean(_ value: SQLValue) -> SQLValue? {
        switch value {
        case .integer(let v): return .integer(v != 0 ? 1 : 0)
        case .real(let d): return d.isNaN ? nil : .integer(d != 0 ? 1 : 0)
        case .text(let s):
            switch s.trimmingCharacters(in: .whitespaces).lowercased() {
            case "yes", "true": return .integer(1)
            case "no", "false": return .integer(0)
            case let other: return Double(other).flatMap { boolean(.real($0)) }
            }
        default: return nil
        }
    }

    private static func real(_ value: SQLValue) -> SQLValue? {
        switch value {
        case .integer(let v): return .real(Double(v))
        case .real: return value
        case .text(let s):
            guard let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite else { return nil }
            return .real(d)
        default: return nil
        }
    }

    private static func text(_ value: SQLValue) -> SQLValue? {
        switch value {
        case .integer(let v): return .text(String(v))
        case .real(let d):
            if d == d.rounded(), abs(d) < 1e15 { return .text(String(Int64(d))) }
            return .text(String(d))
        case .text: return value
        default: return nil
        }
    }

    static func describe(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let d): return String(d)
        case .text(let s): return "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
        case .blob(let data): return "\(data.count) bytes of data"
        }
    }

    // MARK: The SQL function

    /// Converts one value; on failure records why and returns nil.
    fileprivate func convert(_ value: SQLValue, key: Int64, target index: Int) -> SQLValue? {
        let target = targets[index]
        if collectsFailures {
            let converted = Self.convert(value, to: target.type)
            if converted == nil || (converted == .null && target.isRequired) {
                collected.append(.init(code: converted == nil ? .unconvertibleValue : .missingValue, entity: target.entity,
                                       property: target.property, key: key, value: Self.describe(value)))
            }
            return converted ?? .null
        }
        guard let converted = Self.convert(value, to: target.type) else {
            failure = self.failure(.unconvertibleValue, target: index, key: key, value: Self.describe(value))
            return nil
        }
        if case .null = converted, target.isRequired {
            failure = self.failure(.missingValue, target: index, key: key, value: "NULL")
            return nil
        }
        return converted
    }

    /// Why the value `value` (described) of the row `key` stopped the migration for the
    /// target at `index`: it does not convert (`.unconvertibleValue`) or is missing
    /// (`.missingValue`). The same words whichever store converted it.
    func failure(_ code: MigrationError.Code, target index: Int, key: Int64, value: String) -> Failure {
        let target = targets[index]
        let message = code == .missingValue
            ? "the row with Z_PK \(key) has no value for \(target.property), which the new model requires and gives no default for; give the attribute a default value, keep it optional, or fill the value before migrating"
            : "the row with Z_PK \(key) holds \(value), which does not convert to \(target.type.rawValue); correct the value, or keep the attribute's old type"
        return Failure(code: code, entity: target.entity, property: target.property, message: message)
    }
}

private func ogMigrateFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 3, let values, let data = sqlite3_user_data(context) else {
        sqlite3_result_error(context, "og_migrate: bad arguments", -1)
        return
    }
    let converter = Unmanaged<MigrationValueConverter>.fromOpaque(data).takeUnretainedValue()
    let value: SQLValue
    switch sqlite3_value_type(values[0]) {
    case SQLITE_INTEGER: value = .integer(sqlite3_value_int64(values[0]))
    case SQLITE_FLOAT: value = .real(sqlite3_value_double(values[0]))
    case SQLITE_TEXT:
        let bytes = Int(sqlite3_value_bytes(values[0]))
        value = .text(sqlite3_value_text(values[0]).map { String(decoding: UnsafeBufferPointer(start: $0, count: bytes), as: UTF8.self) } ?? "")
    case SQLITE_BLOB:
        let bytes = Int(sqlite3_value_bytes(values[0]))
        value = .blob(sqlite3_value_blob(values[0]).map { Data(bytes: $0, count: bytes) } ?? Data())
    default: value = .null
    }
    guard let converted = converter.convert(value, key: sqlite3_value_int64(values[1]), target: Int(sqlite3_value_int64(values[2]))) else {
        sqlite3_result_error(context, "og_migrate: a value does not fit the new model", -1)
        return
    }
    switch converted {
    case .null: sqlite3_result_null(context)
    case .integer(let v): sqlite3_result_int64(context, v)
    case .real(let d): sqlite3_result_double(context, d)
    case .text(let s):
        var text = s
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    sqlite3_result_text(context, base, Int32(chars.count), csqlite_transient())
                } else {
                    sqlite3_result_text(context, "", 0, csqlite_transient())
                }
            }
        }
    case .blob(let d):
        d.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), csqlite_transient()) }
    }
}
