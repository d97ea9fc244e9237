import Foundation
import ObjectGraph
import XCTest

/// Issue 38's oracle for JSON and the tool's outputs: random values of every attribute type
/// are exported through the API and the tool, imported into an empty store and exported
/// again, and must come out identical (numbers bit for bit); the `csv`, `json` and `jsonl`
/// outputs are read back by readers that share no code with the tool (Python's `csv` and
/// `json`, Foundation's `JSONDecoder`) and must give every value.
///
/// Seeded: case `n` is seed `JSON_ORACLE_SEED + n`. `swift test` runs 2 cases of 40 records;
/// a long run: `JSON_ORACLE_CASES=200 JSON_ORACLE_SEED=1000 swift test --filter CLIJSONOracleTests`.
final class CLIJSONOracleTests: XCTestCase {
    private let relatedBy = ["--related-by", "OracleSample=key"]

    func testRandomValuesOfEveryTypeRoundTripAndEveryOutputReadsBack() throws {
        let environment = ProcessInfo.processInfo.environment
        let cases = environment["JSON_ORACLE_CASES"].flatMap(Int.init) ?? 2
        let first = environment["JSON_ORACLE_SEED"].flatMap(UInt64.init) ?? 1
        let records = environment["JSON_ORACLE_RECORDS"].flatMap(Int.init) ?? 40
        if IndependentReaders.python == nil {
            print("CLIJSONOracleTests: python3 not found: the csv, json and jsonl outputs are read by JSONDecoder only; the RFC 4180 (csv) check is SKIPPED")
        }
        var checked = 0
        for seed in first..<first + UInt64(cases) {
            do {
                checked += try runCase(seed: seed, records: records)
            } catch {
                XCTFail("JSON oracle, seed \(seed) (run it alone: JSON_ORACLE_SEED=\(seed) JSON_ORACLE_CASES=1 swift test --filter CLIJSONOracleTests): \(error)")
                return
            }
        }
        print("CLIJSONOracleTests: \(cases) cases (seeds \(first)..<\(first + UInt64(cases))), \(cases * records) records, \(checked) values checked, python3 \(IndependentReaders.python == nil ? "absent" : "used")")
    }

    /// One case; returns the number of values checked against the independent readers.
    private func runCase(seed: UInt64, records: Int) throws -> Int {
        let folder = try CLITestStores.folder()
        let (source, api, tool) = (folder.appendingPathComponent("A.sqlite"), folder.appendingPathComponent("B.sqlite"),
                                   folder.appendingPathComponent("C.sqlite"))
        var random = OracleRandom(seed: seed)
        try withStore(source) { context in
            for index in 0..<records { OracleValues.fill(OracleSample(context: context), key: String(format: "k%05d", index), &random) }
            try context.save()
        }
        let request = FetchRequest<OracleSample>(sortDescriptors: [SortKey("key")])
        let options = JSONExportOptions(mapping: JSONMapping(relatedBy: ["OracleSample": "key"]))

        // Through the API: export, import into an empty store, export again.
        let (sourceLines, exported, sourceSamples) = try withStore(source) { context in
            (try lines(context, request, options), try context.exportJSON(request, options: options), try snapshots(context, request))
        }
        let importOptions = JSONImportOptions(relatedBy: ["OracleSample": "key"])
        let apiSamples = try withStore(api) { context in
            let report = try context.importJSON(exported, entityName: "OracleSample", options: importOptions)
            guard report.inserted.count == records else { throw CLITestFailure("the API import inserted \(report.inserted.count) of \(records)") }
            return (try lines(context, request, options), try snapshots(context, request))
        }
        try same(apiSamples.0, sourceLines, "the API's export after its import")
        try same(apiSamples.1, sourceSamples, "the values read back after the API's import")

        // Through the tool: export (jsonl is the API's text), import into an empty store, export again.
        let jsonl = try CommandLineRun.tool(arguments: ["export", source.path, "OracleSample", "--sort", "key", "--format", "jsonl"] + relatedBy)
        try succeeded(jsonl, "export --format jsonl")
        try same(jsonl.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init), sourceLines,
                 "the tool's export --format jsonl and the API's exportJSONLines")
        let file = folder.appendingPathComponent("A.json").path
        try succeeded(try CommandLineRun.tool(arguments: ["export", source.path, "OracleSample", "--sort", "key", "--output", file] + relatedBy), "export --output")
        try withStore(tool) { _ in }
        let imported = try CommandLineRun.tool(arguments: ["import", tool.path, "OracleSample", file] + relatedBy)
        try succeeded(imported, "import")
        try same(imported.stdout, "inserted \(records), updated 0, skipped 0\n", "the tool's import report")
        let again = folder.appendingPathComponent("C.json").path
        try succeeded(try CommandLineRun.tool(arguments: ["export", tool.path, "OracleSample", "--sort", "key", "--output", again] + relatedBy), "export --output")
        try same(FileManager.default.contents(atPath: again), FileManager.default.contents(atPath: file), "the tool's export after its import")
        try same(try withStore(tool) { try snapshots($0, request) }, sourceSamples, "the values read back after the tool's import")

        // Every output format, read back by independent readers.
        let values = try withStore(source) { context in try context.fetch(request).map(Self.expectations) }
        var checked = 0
        for format in ["csv", "json", "jsonl"] {
            let run = try CommandLineRun.tool(arguments: ["fetch", source.path, "OracleSample", "--sort", "key", "--format", format] + relatedBy)
            try succeeded(run, "fetch --format \(format)")
            if let rows = try IndependentReaders.pythonRead(run.stdout, as: format) {
                checked += try compare(python: rows, format: format, with: values)
            }
            if format == "json" {
                let rows = try JSONDecoder().decode([[String: DecodedJSON]].self, from: Data(run.stdout.utf8))
                checked += try compare(decoded: rows, with: values)
            }
        }
        return checked
    }

    // MARK: Stores

    private func withStore<T>(_ url: URL, _ body: (ManagedObjectContext) throws -> T) throws -> T {
        let container = try PersistentContainer(name: "Oracle", entities: [OracleSample.self], storeURL: url)
        defer { container.persistentStoreCoordinator.close() }
        return try body(container.viewContext)
    }

    private func lines(_ context: ManagedObjectContext, _ request: FetchRequest<OracleSample>, _ options: JSONExportOptions) throws -> [String] {
        var lines: [String] = []
        try context.exportJSONLines(request, options: options) { lines.append(String(decoding: $0, as: UTF8.self)) }
        return lines
    }

    /// Each sample's values in a form that compares bit for bit (numbers by their bits,
    /// strings by their scalars).
    private func snapshots(_ context: ManagedObjectContext, _ request: FetchRequest<OracleSample>) throws -> [String] {
        try context.fetch(request).map { sample in
            Self.expectations(sample).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    // MARK: Expected values

    /// What a reader must find for a value.
    enum Expected: CustomStringConvertible, Equatable {
        case null, text([Unicode.Scalar]), bool(Bool), integer(Int64), double(UInt64), decimal(Decimal), date(UInt64), box(OracleBox)

        var description: String {
            switch self {
            case .null: return "nil"
            case .text(let scalars): return "\"" + scalars.map { $0.escaped(asASCII: true) }.joined() + "\""
            case .bool(let flag): return "\(flag)"
            case .integer(let value): return "\(value)"
            case .double(let bits): return "\(Double(bitPattern: bits))[\(String(bits, radix: 16))]"
            case .decimal(let value): return "\(value)d"
            case .date(let bits): return "@\(Double(bitPattern: bits))"
            case .box(let box): return "{\(Double(box.number))[\(String(box.number.bitPattern, radix: 16))], \(Expected.text(Array(box.words.unicodeScalars)))}"
            }
        }
    }

    /// Every attribute of `sample`, by name, as a reader must find it.
    static func expectations(_ sample: OracleSample) -> [(key: String, value: Expected)] {
        func text(_ value: String?) -> Expected { value.map { .text(Array($0.unicodeScalars)) } ?? .null }
        func integer<T: BinaryInteger>(_ value: T?) -> Expected { value.map { .integer(Int64($0)) } ?? .null }
        func double(_ value: Double?) -> Expected { value.map { .double($0.bitPattern) } ?? .null }
        func date(_ value: Date?) -> Expected { value.map { .date($0.timeIntervalSinceReferenceDate.bitPattern) } ?? .null }
        func base64(_ value: Data?) -> Expected { text(value?.base64EncodedString()) }
        return [
            ("key", text(sample.key)), ("flag", .bool(sample.flag)), ("small", integer(sample.small)), ("medium", integer(sample.medium)),
            ("large", integer(sample.large)), ("count", integer(sample.count)), ("ratio", double(sample.ratio)),
            ("score", double(Double(sample.score))), ("price", .decimal(sample.price)), ("text", text(sample.text)),
            ("when", date(sample.when)), ("payload", base64(sample.payload)), ("serial", text(sample.serial.uuidString)),
            ("link", text(sample.link.absoluteString)), ("box", .box(sample.box)),
            ("maybeFlag", sample.maybeFlag.map { .bool($0) } ?? .null), ("maybeSmall", integer(sample.maybeSmall)),
            ("maybeMedium", integer(sample.maybeMedium)), ("maybeLarge", integer(sample.maybeLarge)), ("maybeRatio", double(sample.maybeRatio)),
            ("maybeScore", double(sample.maybeScore.map(Double.init))), ("maybePrice", sample.maybePrice.map { .decimal($0) } ?? .null),
            ("maybeText", text(sample.maybeText)), ("maybeWhen", date(sample.maybeWhen)), ("maybePayload", base64(sample.maybePayload)),
            ("maybeSerial", text(sample.maybeSerial?.uuidString)), ("maybeLink", text(sample.maybeLink?.absoluteString)),
            ("maybeBox", sample.maybeBox.map { .box($0) } ?? .null),
        ]
    }

    // MARK: Reading back

    /// What a reader found, as an ``Expected`` for the attribute's kind: `cell` is a CSV
    /// field, or a JSON value as Python read it (numbers as `["#": text]`).
    private static func found(_ cell: Any, like expected: Expected, csv: Bool) -> Expected? {
        if csv, let text = cell as? String, text.isEmpty, expected == .null || expected == .text([]) { return expected }
        if cell is NSNull { return .null }
        let number = (cell as? [String: Any])?["#"] as? String
        switch expected {
        case .null: return nil
        case .text: return (cell as? String).map { .text(Array($0.unicodeScalars)) }
        case .bool:
            if csv { return (cell as? String).flatMap { text -> Expected? in text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil } }
            return (cell as? NSNumber).map { .bool($0.boolValue) }
        case .integer: return (csv ? cell as? String : number).flatMap { Int64($0) }.map { .integer($0) }
        case .double: return (csv ? cell as? String : number).flatMap { Double($0) }.map { .double($0.bitPattern) }
        case .decimal: return (csv ? cell as? String : number).flatMap { Decimal(string: $0) }.map { .decimal($0) }
        case .date: return (cell as? String).flatMap(ISO8601Date.parse).map { .date($0.timeIntervalSinceReferenceDate.bitPattern) }
        case .box:
            if csv { return (cell as? String).flatMap { try? JSONDecoder().decode(OracleBox.self, from: Data($0.utf8)) }.map { .box($0) } }
            guard let object = cell as? [String: Any], let words = object["words"] as? String,
                  let text = (object["number"] as? [String: Any])?["#"] as? String, let value = Double(text) else { return nil }
            return .box(OracleBox(number: value, words: words))
        }
    }

    /// Python's rows (CSV: a header then string fields; JSON: objects) against the values.
    private func compare(python rows: [Any], format: String, with values: [[(key: String, value: Expected)]]) throws -> Int {
        var checked = 0
        if format == "csv" {
            guard let table = rows as? [[String]], let header = table.first else { throw CLITestFailure("csv: not rows of strings") }
            try same(header, values.first?.map(\.key) ?? header, "csv: the header")
            try same(table.count - 1, values.count, "csv: the number of rows (a line break inside a field split one)")
            for (row, record) in zip(table.dropFirst(), values) {
                try same(row.count, record.count, "csv: the fields of \(record[0].value) (a comma inside a field split one): \(row)")
                for (field, (key, expected)) in zip(row, record) {
                    try same(Self.found(field, like: expected, csv: true), expected, "csv: \(key) of \(record[0].value), read \(field.debugDescription)")
                    checked += 1
                }
            }
            return checked
        }
        guard rows.count == values.count else { throw CLITestFailure("\(format): \(rows.count) rows for \(values.count) objects") }
        for (row, record) in zip(rows, values) {
            guard let object = row as? [String: Any] else { throw CLITestFailure("\(format): a row is not an object") }
            for (key, expected) in record {
                guard let cell = object[key] else { throw CLITestFailure("\(format): \(key) of \(record[0].value) is missing") }
                try same(Self.found(cell, like: expected, csv: false), expected, "\(format) (python): \(key) of \(record[0].value), read \(cell)")
                checked += 1
            }
        }
        return checked
    }

    /// `JSONDecoder`'s rows against the values.
    private func compare(decoded rows: [[String: DecodedJSON]], with values: [[(key: String, value: Expected)]]) throws -> Int {
        try same(rows.count, values.count, "json (JSONDecoder): the number of rows")
        var checked = 0
        for (row, record) in zip(rows, values) {
            for (key, expected) in record {
                let found: Expected?
                switch (row[key], expected) {
                case (.null?, _): found = .null
                case (.string(let text)?, .text): found = .text(Array(text.unicodeScalars))
                case (.string(let text)?, .date): found = ISO8601Date.parse(text).map { .date($0.timeIntervalSinceReferenceDate.bitPattern) }
                case (.bool(let flag)?, .bool): found = .bool(flag)
                case (.number(let integer, _, _)?, .integer): found = integer.map { .integer($0) }
                case (.number(_, let double, _)?, .double): found = double.map { .double($0.bitPattern) }
                case (.number(_, _, let decimal)?, .decimal): found = decimal.map { .decimal($0) }
                case (.object(let box)?, .box):
                    if case .string(let words)? = box["words"], case .number(_, let number?, _)? = box["number"] {
                        found = .box(OracleBox(number: number, words: words))
                    } else {
                        found = nil
                    }
                default: found = nil
                }
                try same(found, expected, "json (JSONDecoder): \(key) of \(record[0].value)")
                checked += 1
            }
        }
        return checked
    }

    // MARK: Checks that throw (so that one case stops at its first difference)

    private func same<T: Equatable>(_ found: T, _ expected: T, _ what: String) throws {
        guard found != expected else { return }
        if let found = found as? [String], let expected = expected as? [String],
           let index = zip(found, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            throw CLITestFailure("\(what) differs at row \(index):\n  found    \(found[index])\n  expected \(expected[index])")
        }
        throw CLITestFailure("\(what): found \(String(describing: found).prefix(2000)), expected \(String(describing: expected).prefix(2000))")
    }

    private func succeeded(_ run: CommandLineRun, _ what: String) throws {
        guard run.status == 0 else { throw CLITestFailure("\(what) exited \(run.status): \(run.stderr)") }
    }
}
