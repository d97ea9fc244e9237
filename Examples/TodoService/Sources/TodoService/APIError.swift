import Hummingbird
import Logging
import ManagedRecord

/// An error answered as JSON: `{"error": {"message": "…", "problems": [{"field": …, "message": …}]}}`,
/// the shape of Hummingbird's own `HTTPError` (which answers bad JSON with 400), plus the list
/// of validation problems when there are some.
public struct APIError: HTTPResponseError, CustomStringConvertible, Sendable {
    /// One problem of a refused todo: the field and what is wrong with it.
    public struct Problem: Codable, Equatable, Sendable {
        /// The attribute (nil for a problem of the whole todo).
        public var field: String?
        /// What is wrong, as the library says it.
        public var message: String
    }

    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// One sentence for a person.
    public let message: String
    /// The validation problems, for a 422.
    public let problems: [Problem]

    /// An error answered with `status`, `message` and `problems`.
    public init(_ status: HTTPResponse.Status, _ message: String, problems: [Problem] = []) {
        self.status = status
        self.message = message
        self.problems = problems
    }

    public var description: String { "\(status.code) \(message)" }

    /// The JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ErrorBody(error: .init(message: message, problems: problems.isEmpty ? nil : problems))
        var response = try context.responseEncoder.encode(body, from: request, context: context)
        response.status = status
        return response
    }
}

/// The JSON of an ``APIError``.
private struct ErrorBody: Encodable {
    struct Detail: Encodable {
        var message: String
        var problems: [APIError.Problem]?
    }
    var error: Detail
}

extension APIError {
    /// The HTTP answer for an error the store or the model threw: the client's mistakes are
    /// 4xx with the library's message, a shutdown is 503, and only the store's own failures
    /// (disk full, a lost server) are 500.
    static func mapping(_ error: any Error, logger: Logger) -> any Error {
        switch error {
        case let error as any HTTPResponseError:
            return error
        case let error as ValidationError:
            return APIError(.unprocessableContent, "the todo was not saved: \(error.problems.count == 1 ? "a field is" : "fields are") invalid",
                            problems: error.problems.map { Problem(field: $0.key, message: $0.message) })
        case let error as ConstraintConflictError:
            let fields = Set(error.conflicts.flatMap(\.constraint)).sorted()
            return APIError(.conflict, "another todo already has the same \(fields.joined(separator: " and ")); choose another")
        case is MergeConflictError:
            return APIError(.conflict, "the todo was changed by another request while this one saved it; read it again and retry")
        case let error as ContextError where error.code == .objectNotFound:
            return APIError(.notFound, "the todo does not exist (any more)")
        case let error as StoreUnavailableError:
            return APIError(.serviceUnavailable, error.description)
        case let error as StoreError where error.code == .closed:
            return APIError(.serviceUnavailable, StoreUnavailableError().description)
        case let error as StoreError where error.code == .locked || error.code == .timeout:
            return APIError(.serviceUnavailable, "the store is busy; retry")
        default:
            logger.error("request failed", metadata: ["error": "\(error)"])
            return APIError(.internalServerError, "the server could not complete the request")
        }
    }
}

/// Turns whatever a route throws into its HTTP answer (``APIError/mapping(_:logger:)``), so
/// routes can let the library's errors through.
struct ErrorMappingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            throw APIError.mapping(error, logger: context.logger)
        }
    }
}
