import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord export STORE Employee "age > 40" --related-by Department=name > employees.json`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the matching objects of an entity as a JSON array, one object per line (what import reads).",
        discussion: "Relationships are written as the related objects' --related-by values (their object ID URIs when an entity has none); --relationships omit leaves them out, nested:N nests N levels.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var query: QueryOptions
    @OptionGroup var order: OrderOptions
    @OptionGroup var relatedBy: RelatedByOptions
    @Option(name: .long, help: "keys (default), omit, or nested:N.")
    var relationships = "keys"
    @Option(name: [.short, .long], help: "Write to this file instead of standard output.")
    var output: String?

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            let (entity, request) = try opened.request(query, order)
            var options = JSONExportOptions(relationships: try relationshipEncoding())
            options.mapping = JSONMapping(relatedBy: try relatedBy.mapping(in: opened))
            let total = try opened.context.count(for: request)
            let sink = try output.map(OutputFile.init) ?? OutputFile.standardOutput
            var written = 0
            sink.write(Data("[".utf8))
            try opened.context.exportJSONLines(request, options: options) { line in
                sink.write(Data((written == 0 ? "\n" : ",\n").utf8) + line)
                written += 1
                if written % 1000 == 0 { Terminal.progress("exported \(written) of \(total) \(entity.name) objects") }
            }
            sink.write(Data((written == 0 ? "]\n" : "\n]\n").utf8))
            try sink.close()
            Terminal.progress("exported \(written) \(entity.name) objects", done: true)
        }
    }

    private func relationshipEncoding() throws -> JSONExportOptions.RelationshipEncoding {
        switch relationships {
        case "keys": return .keys
        case "omit": return .omitted
        default:
            if relationships.hasPrefix("nested:"), let depth = Int(relationships.dropFirst("nested:".count)), depth >= 0 { return .nested(depth: depth) }
            throw CLIError("--relationships \(relationships): use keys, omit or nested:N (N levels, 0 or more)")
        }
    }
}

/// Standard output or a file created for the export.
struct OutputFile {
    let handle: FileHandle
    let ownsHandle: Bool

    static var standardOutput: OutputFile { OutputFile(handle: .standardOutput, ownsHandle: false) }

    init(handle: FileHandle, ownsHandle: Bool) {
        self.handle = handle
        self.ownsHandle = ownsHandle
    }

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CLIError("cannot create the output file \(path): check that its folder exists and can be written")
        }
        self.init(handle: try FileHandle(forWritingTo: URL(fileURLWithPath: path)), ownsHandle: true)
    }

    func write(_ data: Data) { handle.write(data) }

    func close() throws { if ownsHandle { try handle.close() } }
}
