import Foundation

/// Readers of the tool's outputs that share no code with it: Python's `csv` module (RFC
/// 4180) and `json` module, run through `python3`, and Foundation's `JSONDecoder`.
enum IndependentReaders {
    /// `python3` on the PATH, or nil (the tests that need it say they skipped).
    static let python: String? = {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/python3"
            if FileManager.default.isExecutableFile(atPath: path),
               let run = try? CommandLineRun.run(path, ["-c", "import csv, json, sys; print('ok')"]), run.status == 0 {
                return path
            }
        }
        return nil
    }()

    /// Reads CSV with `csv.reader(strict=True)` and prints the rows as JSON (strings only).
    /// JSON and JSON Lines with `json.loads`, each number kept as its text in `{"#": text}`
    /// so that no reader's rounding comes between the output and the check.
    private static let script = #"""
    import csv, io, json, sys
    mode = sys.argv[1]
    data = sys.stdin.buffer.read().decode("utf-8")
    number = lambda text: {"#": text}
    if mode == "csv":
        rows = list(csv.reader(io.StringIO(data, newline=""), strict=True))
    elif mode == "json":
        rows = json.loads(data, parse_float=number, parse_int=number)
    else:
        rows = [json.loads(line, parse_float=number, parse_int=number) for line in data.split("\n") if line != ""]
    sys.stdout.write(json.dumps(rows))
    """#

    /// The rows Python reads from `text` (`csv`, `json` or `jsonl`), as JSON-ready values
    /// (a number as `["#": text]`); nil without `python3`.
    static func pythonRead(_ text: String, as mode: String) throws -> [Any]? {
        guard let python else { return nil }
        let run = try CommandLineRun.run(python, ["-c", script, mode], input: text)
        guard run.status == 0 else { throw CLITestFailure("python3 could not read the \(mode) output: \(run.stderr)") }
        guard let rows = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any] else {
            throw CLITestFailure("python3 printed no rows: \(run.stdout.prefix(200))")
        }
        return rows
    }
}

/// Any JSON value as Foundation's `JSONDecoder` reads it, a number with every form it reads
/// it as (so that a number is checked against the attribute's type without a second parser).
enum DecodedJSON: Decodable {
    case null
    case bool(Bool)
    case string(String)
    case number(integer: Int64?, double: Double?, decimal: Decimal?)
    case object([String: DecodedJSON])
    case array([DecodedJSON])

    init(from decoder: Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var object: [String: DecodedJSON] = [:]
            for key in container.allKeys { object[key.stringValue] = try container.decode(DecodedJSON.self, forKey: key) }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var array: [DecodedJSON] = []
            while !container.isAtEnd { array.append(try container.decode(DecodedJSON.self)) }
            self = .array(array)
            return
        }
        let value = try decoder.singleValueContainer()
        if value.decodeNil() { self = .null; return }
        if let flag = try? value.decode(Bool.self) { self = .bool(flag); return }
        if let text = try? value.decode(String.self) { self = .string(text); return }
        self = .number(integer: try? value.decode(Int64.self), double: try? value.decode(Double.self), decimal: try? value.decode(Decimal.self))
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
