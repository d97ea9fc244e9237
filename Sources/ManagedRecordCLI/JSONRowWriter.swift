import Foundation

/// Rows (each one JSON value, already encoded) written as one JSON document, an array with
/// one row per line inside it, or as JSON Lines, one row per line. `[]` for no rows.
struct JSONRowWriter {
    let sink: OutputFile
    /// JSON Lines rather than one array.
    let lines: Bool
    private(set) var count = 0

    /// `format` must be `.json` or `.jsonl`.
    init(_ format: OutputFormat, to sink: OutputFile = .standardOutput) {
        self.sink = sink
        lines = format == .jsonl
    }

    mutating func write(_ row: Data) {
        if lines {
            sink.write(row + Data("\n".utf8))
        } else {
            sink.write(Data((count == 0 ? "[\n" : ",\n").utf8) + row)
        }
        count += 1
    }

    /// Closes the array (and the file, when the sink owns one).
    func finish() throws {
        if !lines { sink.write(Data((count == 0 ? "[]\n" : "\n]\n").utf8)) }
        try sink.close()
    }
}
