import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord export STORE Employee "age > 40" --related-by Department=name > employees.json`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the matching objects of an entity as a JSON array, one object per line (what import reads).",
        discussion: """
        Relationships are written as the related objects' --related-by values; a related object without one is nested \
        (with its "@id", so one shared by several objects is imported once), so the export imports into an empty store \
        with the same model. --relationships uris writes object ID URIs instead (meaningful in this store only), omit \
        leaves relationships out, nested:N nests N levels. --format jsonl writes JSON Lines. A new --output file is \
        owner-only (0600); an --output that is a store (the one read or any other), or a store's -wal, -shm or -journal, \
        is refused before anything is written.

        EXAMPLES:
          managedrecord export Company.sqlite Employee -o employees.json
          managedrecord export Company.sqlite Employee "age > 40" --format jsonl
          managedrecord export postgres://app@dbhost/company Department -o dep.json
        """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var query: QueryOptions
    @OptionGroup var order: OrderOptions
    @OptionGroup var relatedBy: RelatedByOptions
    @Option(name: .long, help: "keys (default: related-by values, else nested), uris, omit, or nested:N.")
    var relationships = "keys"
    @Option(name: .long, help: "json (one JSON array, the default) or jsonl (JSON Lines: one object per line).")
    var format: OutputFormat = .json
    @Option(name: [.short, .long], help: "Write to this file instead of standard output (created 0600; never a store).")
    var output: String?
    @Flag(name: .long, help: "Create the --output file with the process umask instead of 0600.")
    var keepUmask = false

    func validate() throws {
        if format != .json && format != .jsonl { throw ValidationError("--format \(format.rawValue): export writes json or jsonl") }
    }

    func run() throws {
        try reportingErrors {
            if let output { try OutputFile.refuseStore(at: output, readingStore: store.storeURL) }
            let opened = try store.open()
            let (entity, request) = try opened.request(query, order)
            var options = JSONExportOptions(relationships: try relationshipEncoding())
            options.mapping = JSONMapping(relatedBy: try relatedBy.mapping(in: opened))
            let progress = ProgressLine("exported", "\(entity.name) objects", total: try opened.context.count(for: request))
            let sink = try output.map { try OutputFile(path: $0, readingStore: store.storeURL, keepsUmask: keepUmask) }
            var writer = JSONRowWriter(format, to: sink ?? OutputFile.standardOutput)
            Terminal.progress("fetching \(progress.total) \(entity.name) objects...")
            try opened.context.exportJSONLines(request, options: options) { line in
                writer.write(line)
                progress.update(writer.count)
            }
            try writer.finish()
            progress.finish(writer.count)
        }
    }

    private func relationshipEncoding() throws -> JSONExportOptions.RelationshipEncoding {
        switch relationships {
        case "keys": return .keys
        case "uris": return .objectIDs
        case "omit": return .omitted
        default:
            if relationships.hasPrefix("nested:"), let depth = Int(relationships.dropFirst("nested:".count)), depth >= 0 { return .nested(depth: depth) }
            throw CLIError("--relationships \(relationships): use keys, uris, omit or nested:N (N levels, 0 or more)")
        }
    }
}
