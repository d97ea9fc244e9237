import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord fetch STORE Employee "age > 40" --sort lastName,-age --limit 10 --format json`
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Print the objects of an entity that match a predicate.",
        discussion: """
        table: aligned columns of the attributes; json: one JSON array of the objects (keys sorted; relationships as the \
        related objects' --related-by values, or nested, see export); jsonl: the same objects, one per line (JSON Lines); \
        csv: a header, then one row per object.

        EXAMPLES:
          managedrecord fetch Company.sqlite Employee "age > 40" --sort lastName,-age
          managedrecord fetch Company.sqlite Employee --format csv > employees.csv
          PGPASSWORD=secret managedrecord fetch postgres://app@dbhost/company Employee
        """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var query: QueryOptions
    @OptionGroup var order: OrderOptions
    @OptionGroup var relatedBy: RelatedByOptions
    @Option(name: .long, help: OutputFormat.help)
    var format: OutputFormat = .table

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            let (entity, request) = try opened.request(query, order)
            if format == .json || format == .jsonl {
                var options = JSONExportOptions()
                options.mapping = JSONMapping(relatedBy: try relatedBy.mapping(in: opened))
                var writer = JSONRowWriter(format)
                try opened.context.exportJSONLines(request, options: options) { writer.write($0) }
                try writer.finish()
            } else {
                let rows = try opened.context.exportJSONObjects(request, options: JSONExportOptions(relationships: .omitted))
                RowPrinter(columns: entity.storedAttributeNames).print(rows, as: format)
            }
        }
    }
}

extension EntityDescription {
    /// The names of the attributes kept in the store, in the model's order.
    var storedAttributeNames: [String] { attributes.filter { !$0.isTransient }.map(\.name) }
}
