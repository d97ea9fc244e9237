import Foundation
import Hummingbird
import ManagedRecord

/// A todo as the API returns it (`GET`, and the answer of `POST` and `PATCH`).
public struct TodoResponse: ResponseCodable, Equatable, Sendable {
    public var id: UUID
    public var title: String
    public var completed: Bool
    public var order: Int
    /// ISO 8601, UTC, with fractional seconds.
    public var createdAt: String
    /// Send it back in a `PATCH` to refuse the change (409) if someone else changed it first.
    public var revision: Int

    /// The response for `todo`, read inside its context's `perform`.
    init(_ todo: Todo) {
        id = todo.identifier
        title = todo.title
        completed = todo.completed
        order = todo.order
        createdAt = todo.createdAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        revision = todo.revision
    }
}

/// The list the API returns for `GET /todos`.
public struct TodoListResponse: ResponseCodable, Equatable, Sendable {
    public var items: [TodoResponse]
    /// How many todos match the filters, whatever `limit` and `offset` cut.
    public var total: Int
}

/// The body of `POST /todos`: a title, and optionally `completed` and `order`.
public struct CreateTodoRequest: Codable, Sendable {
    public var title: String
    public var completed: Bool?
    public var order: Int?
}

/// The body of `PATCH /todos/:id`: the fields to change, and optionally the `revision` the
/// client read (the change is refused with 409 when the todo has changed since).
public struct UpdateTodoRequest: Codable, Sendable {
    public var title: String?
    public var completed: Bool?
    public var order: Int?
    public var revision: Int?

    var changesNothing: Bool { title == nil && completed == nil && order == nil }
}
