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
    func print(_ rows: [[String: Any]], as format: OutputFormat) {
        switch format {
        case .csv:
            var text = columns.map(Self.csvField).joined(separator: ",") + "\n"
            for row in rows { text += columns.map { Self.csvField(Self.text(row[$0])) }.joined(separator: ",") + "\n" }
            Terminal.write(text)
        case .table:
            let cells = rows.map { row in columns.map { Self.text(row[$0], null: "NULL") } }
            var widths = columns.map(\.count)
            for line in cells { for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) } }
            func line(_ values: [String]) -> String {
                values.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            }
            var text = line(columns) + line(widths.map { String(repeating: "-", count: $0) })
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
        case let number as Double: return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case let number as Decimal: return number.description
        default:
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? String(describing: value)
        }
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
