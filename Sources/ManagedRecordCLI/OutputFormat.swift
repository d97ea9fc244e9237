import ArgumentParser
import Foundation
import ObjectGraph

/// How `fetch` and `distinct` print rows: an aligned table, one JSON document (an array of
/// the rows, as `sqlite3 -json` prints), JSON Lines (one JSON value per line), or CSV with a
/// header.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, csv

    /// The help text of a `--format` option.
    static let help: ArgumentHelp = "table, json (one JSON array), jsonl (JSON Lines: one JSON value per line) or csv."
}

/// Rows of JSON-ready values (what the JSON export makes) printed as a table or CSV.
struct RowPrinter {
    let columns: [String]

    /// Writes `rows` under a header of the column names.
    ///
    /// CSV (RFC 4180): a field is quoted when it holds a comma, a quote, a CR or a LF
    /// anywhere (checked scalar by scalar: `\r\n`, or a `,` followed by a combining mark, is
    /// one `Character`), its quotes doubled; nil is an empty field, the empty string `""`.
    ///
    /// Table: each cell as ``TerminalText/visible(_:)`` shows it (`\r\n` as `\r\n`, a
    /// backslash as `\\`), padded to its column's width in terminal columns (emoji and CJK
    /// count two), never cut; nil is `NULL`, the string "NULL" `\NULL`.
    func print(_ rows: [[String: Any]], as format: OutputFormat) {
        switch format {
        case .csv:
            var text = columns.map(Self.csvField).joined(separator: ",") + "\n"
            for row in rows { text += columns.map { Self.csvCell(row[$0]) }.joined(separator: ",") + "\n" }
            Terminal.write(text)
        case .table:
            let header = columns.map(TerminalText.visible)
            let cells = rows.map { row in columns.map { Self.tableCell(row[$0]) } }
            var widths = header.map(TerminalText.width)
            for line in cells { for (index, cell) in line.enumerated() { widths[index] = max(widths[index], TerminalText.width(cell)) } }
            func line(_ values: [String]) -> String {
                var text = values.enumerated().map { cell, value in
                    value + String(repeating: " ", count: widths[cell] - TerminalText.width(value))
                }.joined(separator: "  ")
                while text.utf8.last == UInt8(ascii: " ") { text.removeLast() }
                return text + "\n"
            }
            var text = line(header) + line(widths.map { String(repeating: "-", count: $0) })
            for values in cells { text += line(values) }
            text += "(\(rows.count) \(rows.count == 1 ? "row" : "rows"))\n"
            Terminal.write(text)
        case .json, .jsonl:
            preconditionFailure("JSON is written by JSONRowWriter, not as rows")
        }
    }

    /// A JSON-ready value as text: strings as they are, numbers and booleans as JSON writes
    /// them, null as `null` (or empty in CSV).
    static func text(_ value: Any?, null: String = "") -> String {
        guard let value, !(type(of: value) is NSNull.Type) else { return null }
        switch value {
        case let text as String: return text
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Double: return JSONWriter.text(of: number)
        case let number as Decimal: return number.description
        default:
            var writer = JSONWriter(pretty: false, sortsKeys: true)
            guard (try? writer.write(value)) != nil else { return String(describing: value) }
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    /// A value as a table cell: visible text, `NULL` for nil, `\NULL` for the string "NULL".
    static func tableCell(_ value: Any?) -> String {
        let text = TerminalText.visible(Self.text(value, null: "NULL"))
        return value is String && text == "NULL" ? "\\NULL" : text
    }

    /// A value as a CSV field: nil empty, the empty string `""`.
    static func csvCell(_ value: Any?) -> String {
        let text = Self.text(value)
        return value is String && text.isEmpty ? "\"\"" : csvField(text)
    }

    /// A CSV field, quoted when any of its Unicode scalars is a comma, a quote, a CR or a
    /// LF (RFC 4180), its quotes doubled. Scalars, not `Character`s: `"\r\n"` is one
    /// `Character` equal to neither `"\r"` nor `"\n"`, and so is `","` with a combining mark.
    static func csvField(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in scalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }
}
