import Foundation
import Hummingbird
import ManagedRecord

/// The query parameters of `GET /todos`, checked: a wrong one is a 400 that says what is
/// accepted, never a quiet default.
///
/// - `completed=true|false`: only done, or only open, todos;
/// - `search=text`: titles containing `text`, ignoring case;
/// - `sort=key,-key`: any of `order`, `title`, `createdAt`, `completed`, a `-` for
///   descending (default `order,createdAt`);
/// - `limit=1…1000` and `offset=0…`: a page.
struct TodoQuery: Sendable {
    static let sortableKeys = ["order", "title", "createdAt", "completed"]
    static let parameterNames = ["completed", "search", "sort", "limit", "offset"]

    var completed: Bool?
    var search: String?
    var sort: [SortKey] = [SortKey("order"), SortKey("createdAt")]
    var limit = 0
    var offset = 0

    /// The query of `request`'s URI, checked.
    init(_ request: Request) throws {
        let parameters = request.uri.queryParameters
        for (name, _) in parameters where !Self.parameterNames.contains(String(name)) {
            throw APIError(.badRequest, "unknown query parameter '\(name)'; use \(Self.parameterNames.joined(separator: ", "))")
        }
        if let value = parameters["completed"] {
            switch value {
            case "true": completed = true
            case "false": completed = false
            default: throw APIError(.badRequest, "completed=\(value): use completed=true or completed=false")
            }
        }
        if let value = parameters["search"], !value.isEmpty { search = String(value) }
        if let value = parameters["sort"] {
            sort = try value.split(separator: ",", omittingEmptySubsequences: false).map { field in
                let descending = field.hasPrefix("-")
                let key = String(descending ? field.dropFirst() : field)
                guard Self.sortableKeys.contains(key) else {
                    throw APIError(.badRequest, "cannot sort by '\(key)'; sort by \(Self.sortableKeys.joined(separator: ", ")), each with - for descending")
                }
                return SortKey(key, ascending: !descending)
            }
        }
        limit = try Self.integer(parameters["limit"], name: "limit", in: 1...1000) ?? 0
        offset = try Self.integer(parameters["offset"], name: "offset", in: 0...Int(Int32.max)) ?? 0
    }

    private static func integer(_ value: Substring?, name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw APIError(.badRequest, "\(name)=\(value): give a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// The predicate of the filters (nil: every todo).
    func predicate() throws -> FetchPredicate? {
        var parts: [FetchPredicate] = []
        if let completed { parts.append(\Todo.$completed == completed) }
        if let search { parts.append(try FetchPredicate("title CONTAINS[c] %@", search)) }
        return parts.isEmpty ? nil : parts.dropFirst().reduce(parts[0]) { $0 && $1 }
    }

    /// The request for one page, sorted, with `identifier` last so that pages never overlap.
    func fetchRequest() throws -> FetchRequest<Todo> {
        var request = FetchRequest<Todo>(predicate: try predicate(), sortDescriptors: sort + [SortKey("identifier")])
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }
}
