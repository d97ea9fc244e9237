import Foundation
import ObjectGraph
import PostgresNIO

/// ``SQLValue``s as PostgreSQL parameters, and result cells (binary format, which
/// postgres-nio asks for) as ``SQLValue``s.
enum PostgresValueCoding {
    /// `values` as `$1`, `$2`, ...: `integer` as int8, `real` as float8, `text` as text, `blob`
    /// as bytea, and `null` as a NULL of type OID 0 (unspecified), whose type the server infers
    /// from where `$n` stands, so `WHERE x = $1` and `INSERT ... VALUES ($1)` work for a column
    /// of any type. Where nothing gives `$n` a type (`$1 IS NULL`), the server refuses a NULL
    /// with SQLSTATE 42P18: the statement must cast it (`$1::int8 IS NULL`).
    static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            }
        }
        return bindings
    }

    /// A cell the driver cannot read as a value.
    struct UnreadableValue: Error, CustomStringConvertible {
        let column: String
        let dataType: PostgresDataType
        let reason: String
        var description: String { "column \"\(column)\" of type \(dataType) (OID \(dataType.rawValue)): \(reason)" }
    }

    /// The value of `cell`: `integer` for int2, int4, int8, oid (and the reg* OID aliases) and
    /// bool (true is 1); `real` for float4 and float8; `text` for numeric, its exact decimal
    /// text (`12.3400`; `NaN`, `Infinity`), which no double could carry; `blob` for bytea; `null` for
    /// NULL and void; `text` for text, varchar, char, name, uuid, json, jsonb, xml, date, time,
    /// timestamp, timestamptz (in UTC, PostgreSQL's ISO style) and types made with CREATE TYPE
    /// or by extensions whose binary form is text (enums, citext). Other built-in types
    /// (interval, arrays, inet, ...) throw ``UnreadableValue``: cast them to text in the SQL.
    static func value(of cell: PostgresCell) throws -> SQLValue {
        guard var buffer = cell.bytes else { return .null }
        func fail(_ reason: String) -> UnreadableValue {
            UnreadableValue(column: cell.columnName, dataType: cell.dataType, reason: reason)
        }
        func integer<I: FixedWidthInteger>(_: I.Type) throws -> I {
            guard buffer.readableBytes == MemoryLayout<I>.size, let value = buffer.readInteger(as: I.self) else {
                throw fail("\(buffer.readableBytes) bytes, not \(MemoryLayout<I>.size)")
            }
            return value
        }
        func text() throws -> String {
            guard let string = buffer.readString(length: buffer.readableBytes) else { throw fail("not UTF-8 text") }
            return string
        }
        guard cell.format == .binary else { return .text(try text()) }
        switch cell.dataType {
        case .int2: return .integer(Int64(try integer(Int16.self)))
        case .int4: return .integer(Int64(try integer(Int32.self)))
        case .int8: return .integer(try integer(Int64.self))
        case .oid, .regproc, .regclass, .regtype, PostgresDataType(28), PostgresDataType(29),
            PostgresDataType(2202), PostgresDataType(2203), PostgresDataType(2204), PostgresDataType(3734),
            PostgresDataType(3769), PostgresDataType(4089), PostgresDataType(4096):
            // oid, regproc, regclass, regtype, xid, cid, regprocedure, regoper, regoperator,
            // regconfig, regdictionary, regnamespace, regrole: an unsigned 32-bit number.
            return .integer(Int64(try integer(UInt32.self)))
        case .bool: return .integer(try integer(UInt8.self) == 0 ? 0 : 1)
        case .float4: return .real(Double(Float(bitPattern: try integer(UInt32.self))))
        case .float8: return .real(Double(bitPattern: try integer(UInt64.self)))
        case .numeric:
            guard let text = PostgresNumericText.text(&buffer) else { throw fail("not a numeric value") }
            return .text(text)
        case .bytea: return .blob(Data(buffer.readableBytesView))
        case .void: return .null
        case .uuid:
            guard let uuid = try? cell.decode(UUID.self) else { throw fail("not 16 bytes") }
            return .text(uuid.uuidString.lowercased())
        case .jsonb:
            guard buffer.readInteger(as: UInt8.self) == 1 else { throw fail("an unknown jsonb version") }
            return .text(try text())
        case .date:
            return .text(PostgresDateText.date(daysSince2000: Int64(try integer(Int32.self))))
        case .time:
            return .text(PostgresDateText.time(microseconds: try integer(Int64.self)))
        case .timestamp:
            return .text(PostgresDateText.timestamp(microsecondsSince2000: try integer(Int64.self), zone: nil))
        case .timestamptz:
            return .text(PostgresDateText.timestamp(microsecondsSince2000: try integer(Int64.self), zone: "+00"))
        case .text, .varchar, .name, .bpchar, .char, .json, .xml, .unknown:
            return .text(try text())
        case let type where type.rawValue >= 16_384:
            // A type made after initdb: an enum, or an extension's text-like type (citext,
            // ltree), sends its text; a type whose binary form is not text must be cast.
            guard let string = buffer.readString(length: buffer.readableBytes) else {
                throw fail("its binary form is not text; cast it to text in the statement (column::text)")
            }
            return .text(string)
        default:
            throw fail("the driver cannot read this type; cast it to text in the statement (column::text)")
        }
    }
}
