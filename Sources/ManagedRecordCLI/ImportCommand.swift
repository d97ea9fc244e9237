import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord import STORE Employee employees.json --related-by Employee=badge`
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a JSON array of records (or one record, or JSON Lines) into an entity, upserting by --related-by.",
        discussion: """
        One transaction by default: after an error the store is as it was. With --batch-size, batches before a failing one stay committed and the error says which.

        EXAMPLES:
          managedrecord import Company.sqlite Employee employees.json
          managedrecord import Company.sqlite Employee - --batch-size 99 <employees.json
        """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity the records are of.", completion: ModelCompletion.entities) var entity: String
    @Argument(help: "The JSON file, or - for standard input.") var file: String
    @OptionGroup var relatedBy: RelatedByOptions
    @Option(name: .long, help: "Commit every N records (bounded memory) instead of one transaction.")
    var batchSize: Int?
    @Flag(name: .long, help: "A key that names no property is an error (instead of ignored and counted).")
    var strict = false

    /// The records of `file`: a JSON array of records, one record, or JSON Lines (one record
    /// per line, what `export --format jsonl` writes); nil when it is none of them (the
    /// import then reports why). Numbers keep their text (``JSONNumber``), so that each
    /// attribute reads its value from every digit.
    ///
    /// - Throws: ``CLIError`` naming the line of JSON Lines that is not a record.
    static func records(in data: Data, file: String) throws -> [Any]? {
        if let parsed = try? JSONParser.parse(data) {
            if let record = parsed as? [String: Any] { return [record] }
            return parsed as? [Any]
        }
        var records: [Any] = []
        for (number, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) {
            guard let record = try? JSONParser.parse(Data(line)) as? [String: Any] else {
                if records.isEmpty { return nil }
                throw CLIError("\(file == "-" ? "standard input" : file), line \(number + 1): not a JSON object, after \(records.count) JSON Lines records; nothing was imported")
            }
            records.append(record)
        }
        return records.isEmpty ? nil : records
    }

    /// The bytes to import: standard input for `-`, else the file at `file` read to its end
    /// through one descriptor, so a device or a pipe (`/dev/null`, `<(...)`) reads as a file
    /// does (`FileManager.contents(atPath:)` returned nil for `/dev/null`).
    ///
    /// - Throws: ``CLIError`` `.emptyInput` when the input holds nothing but white space;
    ///   `.other` when the file cannot be opened or read.
    static func input(_ file: String) throws -> Data {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), isFolder.boolValue {
                throw CLIError("cannot read \(file): it is a folder; give a file of JSON records, or - for standard input")
            }
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw CLIError("cannot read \(file): check the path and its permissions")
            }
            defer { try? handle.close() }
            do {
                data = try handle.readToEnd() ?? Data()
            } catch {
                throw CLIError("cannot read \(file) (\(error.localizedDescription)): give a file of JSON records, or - for standard input")
            }
        }
        guard data.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            let name = file == "-" ? "standard input" : file
            throw CLIError(.emptyInput, "\(name) is empty: nothing was imported (it holds no JSON, at most white space); give a JSON array of records, one record, or JSON Lines, as `managedrecord export` writes")
        }
        return data
    }

    func validate() throws {
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be 1 or more, not \(batchSize)") }
    }

    func run() throws {
        try reportingErrors {
            let data = try Self.input(file)
            let opened = try store.open(writable: true)
            _ = try opened.entity(entity)
            var options = JSONImportOptions(relatedBy: try relatedBy.mapping(in: opened), strict: strict, batchSize: batchSize)
            Terminal.progress("reading \(data.count) bytes of \(entity) records...")
            guard let records = try Self.records(in: data, file: file) else {
                // Not JSON: the import's own parse throws the error that says where.
                _ = try opened.context.importJSON(data, entityName: entity, options: options)
                throw CLIError("\(file) holds no JSON records")
            }
            let progress = ProgressLine("imported", "\(entity) records", total: records.count)
            if Terminal.showsProgress {
                // Every batch committed, and records applied within a long transaction.
                options.progress = { committed, _ in progress.update(committed, always: true) }
                let size = max(1, batchSize ?? records.count)
                options.recordProgress = { applied, total in
                    let saving = applied == total || applied % size == 0
                    progress.update(applied, always: saving, note: saving ? "saving..." : nil)
                }
                if batchSize == nil { Terminal.progress("importing \(records.count) \(entity) records (one transaction)...") }
            }
            progress.start()
            let report = try opened.context.importRecords(records, entityName: entity, options: options)
            progress.finish(report.recordCount)
            var summary = "inserted \(report.inserted.count), updated \(report.updated.count), skipped \(report.skipped.count)"
            if !report.ignoredKeys.isEmpty {
                summary += "; ignored keys: " + report.ignoredKeys.keys.sorted().map { "\($0) (\(report.ignoredKeys[$0]!))" }.joined(separator: ", ")
            }
            Terminal.write(summary + "\n")
        }
    }
}
