import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord distinct STORE Employee lastName "age > 40"`: the distinct values, sorted.
struct DistinctCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "distinct", abstract: "Print the distinct non-null values of a key, sorted, one per line.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "The attribute (or key path through to-one relationships).") var key: String
    @Argument(help: "A predicate selecting the objects.") var predicate: String?
    @Option(name: .long, help: "table, json (one JSON value per line) or csv.")
    var format: OutputFormat = .table

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            try opened.checkKey(key, of: opened.entity(entity))
            var request = try opened.request(entity, predicate)
            request.sortDescriptors = [SortKey(key)]
            let values = try opened.context.distinctValues(of: key, for: request).map(JSONReady.value)
            switch format {
            case .json:
                for value in values { Terminal.write(try JSONReady.text(value) + "\n") }
            case .table, .csv:
                RowPrinter(columns: [key]).print(values.map { [key: $0] }, as: format)
            }
        }
    }
}
