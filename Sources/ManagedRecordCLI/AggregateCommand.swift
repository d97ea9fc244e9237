import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord aggregate STORE Employee avg salary "age > 40"`: one value, computed by SQLite.
struct AggregateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aggregate",
        abstract: "Print sum, avg, min or max of a key over the matching objects (null when there are none).",
        discussion: """
        EXAMPLES:
          managedrecord aggregate Company.sqlite Employee avg salary "age > 40"
          managedrecord aggregate Company.sqlite Employee max age
        """)

    enum Function: String, ExpressibleByArgument, CaseIterable {
        case sum, avg, min, max

        var aggregate: AggregateFunction {
            switch self {
            case .sum: return .sum
            case .avg: return .average
            case .min: return .min
            case .max: return .max
            }
        }
    }

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity.", completion: ModelCompletion.entities) var entity: String
    @Argument(help: "sum, avg, min or max.") var function: Function
    @Argument(help: "The attribute (or key path through to-one relationships).", completion: ModelCompletion.keys) var key: String
    @Argument(help: "A predicate selecting the objects.") var predicate: String?

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            let property = try opened.checkKey(key, of: opened.entity(entity))
            guard let attribute = property as? AttributeDescription else {
                throw CLIError("\(key) is a relationship; aggregate an attribute (\(property.entity.name)'s attributes: \(property.entity.storedAttributeNames.joined(separator: ", ")))")
            }
            let request = try opened.request(entity, predicate)
            let result = try value(of: attribute.attributeType, request, opened.context)
            Terminal.write((try result.map { try JSONReady.text(JSONReady.value($0)) } ?? "null") + "\n")
        }
    }

    /// The aggregate in the attribute's own type: integers stay integers (an average is a
    /// Double), decimals stay exact, dates stay dates.
    private func value(of type: AttributeType, _ request: FetchRequest<ManagedObject>, _ context: ManagedObjectContext) throws -> Any? {
        let aggregate = function.aggregate
        switch type {
        case .integer16, .integer32, .integer64:
            if function == .avg { return try context.aggregate(aggregate, of: key, as: Double.self, for: request) }
            return try context.aggregate(aggregate, of: key, as: Int.self, for: request)
        case .decimal: return try context.aggregate(aggregate, of: key, as: Decimal.self, for: request)
        case .date where function == .min || function == .max: return try context.aggregate(aggregate, of: key, as: Date.self, for: request)
        case .string where function == .min || function == .max: return try context.aggregate(aggregate, of: key, as: String.self, for: request)
        default: return try context.aggregate(aggregate, of: key, for: request)
        }
    }
}
