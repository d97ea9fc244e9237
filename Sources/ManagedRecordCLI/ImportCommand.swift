import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord import STORE Employee employees.json --related-by Employee=badge`
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a JSON array of records (or one record) into an entity, upserting by --related-by.",
        discussion: "One transaction by default: after an error the store is as it was. With --batch-size, batches before a failing one stay committed and the error says which.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity the records are of.") var entity: String
    @Argument(help: "The JSON file, or - for standard input.") var file: String
    @OptionGroup var relatedBy: RelatedByOptions
    @Option(name: .long, help: "Commit every N records (bounded memory) instead of one transaction.")
    var batchSize: Int?
    @Flag(name: .long, help: "A key that names no property is an error (instead of ignored and counted).")
    var strict = false

    func validate() throws {
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be 1 or more, not \(batchSize)") }
    }

    func run() throws {
        try reportingErrors {
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let contents = FileManager.default.contents(atPath: file) else {
                    throw CLIError("cannot read \(file): check the path and its permissions")
                }
                data = contents
            }
            let opened = try store.open(writable: true)
            _ = try opened.entity(entity)
            var options = JSONImportOptions(relatedBy: try relatedBy.mapping(in: opened), strict: strict, batchSize: batchSize)
            if Terminal.showsProgress {
                let name = entity
                options.progress = { committed, total in Terminal.progress("imported \(committed) of \(total) \(name) records") }
            }
            Terminal.progress("importing \(data.count) bytes of \(entity) records...")
            let report = try opened.context.importJSON(data, entityName: entity, options: options)
            Terminal.progress("imported \(report.recordCount) \(entity) records", done: true)
            var summary = "inserted \(report.inserted.count), updated \(report.updated.count), skipped \(report.skipped.count)"
            if !report.ignoredKeys.isEmpty {
                summary += "; ignored keys: " + report.ignoredKeys.keys.sorted().map { "\($0) (\(report.ignoredKeys[$0]!))" }.joined(separator: ", ")
            }
            Terminal.write(summary + "\n")
        }
    }
}
