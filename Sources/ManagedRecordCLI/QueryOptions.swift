import ArgumentParser
import Foundation
import ObjectGraph

/// The entity and predicate of a query command: `Employee "age > 40 AND department.name == 'Sales'"`.
struct QueryOptions: ParsableArguments {
    @Argument(help: "The entity to query (sub-entities included).", completion: ModelCompletion.entities)
    var entity: String

    @Argument(help: "A predicate in Core Data's format syntax, e.g. \"age > 40 AND department.name == 'Sales'\".")
    var predicate: String?

    /// A fetch request for the entity, filtered by the predicate.
    func request(in store: OpenStore) throws -> FetchRequest<ManagedObject> {
        try store.request(entity, predicate)
    }
}

/// `--sort lastName,-age` and `--limit 10`.
struct OrderOptions: ParsableArguments {
    @Option(name: .long, help: "Sort keys separated by commas; a leading - sorts descending (lastName,-age).",
            completion: ModelCompletion.sortKeys)
    var sort: String?

    @Option(name: .long, help: "At most this many objects.")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
    }

    /// Applies the sort keys (checked against `entity`) and the limit to `request`.
    func apply(to request: inout FetchRequest<ManagedObject>, entity: EntityDescription, store: OpenStore) throws {
        if let sort {
            request.sortDescriptors = try sort.split(separator: ",").map { part in
                let text = part.trimmingCharacters(in: .whitespaces)
                let descending = text.hasPrefix("-")
                let key = descending ? String(text.dropFirst()) : text
                try store.checkKey(key, of: entity)
                return SortKey(key, ascending: !descending)
            }
        }
        if let limit { request.fetchLimit = limit }
    }
}
