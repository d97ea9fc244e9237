import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord distinct STORE Employee lastName "age > 40"`: the distinct values, sorted.
struct DistinctCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "distinct", abstract: "Print the distinct non-null values of a key, sorted, one per line.",
        discussion: """
        EXAMPLES:
          managedrecord distinct Company.sqlite Employee lastName
          managedrecord distinct Company.sqlite Employee department.name --format json
        """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity.", completion: ModelCompletion.entities) var entity: String
    @Argument(help: "The attribute (or key path through to-one relationships).", completion: ModelCompletion.keys) var key: String
    @Argument(help: "A predicate selecting the objects.") var predicate: String?
    @Option(name: .long, help: OutputFormat.help)
    var format: OutputFormat = .table

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            try opened.checkKey(key, of: opened.entity(entity))
            var request = try opened.request(entity, predicate)
            request.sortDescriptors = [SortKey(key)]
            let values = try opened.context.distinctValues(of: key, for: request).map(JSONReady.value)
            switch format {
            case .json, .jsonl:
                var writer = JSONRowWriter(format)
                for value in values { writer.write(Data(try JSONReady.text(value).utf8)) }
                try writer.finish()
            case .table, .csv:
                RowPrinter(columns: [key]).print(values.map { [key: $0] }, as: format)
            }
        }
    }
}
