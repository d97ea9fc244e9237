import Foundation
import Hummingbird
import ManagedRecord

/// A todo as the API returns it (`GET`, and the answer of `POST` and `PATCH`).
public struct TodoResponse: ResponseCodable, Equatable, Sendable {
    /// The todo's ID (`/todos/<id>`).
    public var id: UUID
    /// What to do.
    public var title: String
    /// Whether it is done.
    public var completed: Bool
    /// Its position in the client's list.
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
    /// The page asked for, in the order asked for.
    public var items: [TodoResponse]
    /// How many todos match the filters, whatever `limit` and `offset` cut.
    public var total: Int
}

/// The body of `POST /todos`: a title, and optionally `completed` and `order`.
public struct CreateTodoRequest: Codable, Sendable {
    /// Required.
    public var title: String
    /// `false` when absent.
    public var completed: Bool?
    /// 0 when absent.
    public var order: Int?
}

/// The body of `PATCH /todos/:id`: the fields to change, and optionally the `revision` the
/// client read (the change is refused with 409 when the todo has changed since).
public struct UpdateTodoRequest: Codable, Sendable {
    /// A new title, or nil to keep it.
    public var title: String?
    /// A new state, or nil to keep it.
    public var completed: Bool?
    /// A new position, or nil to keep it.
    public var order: Int?
    /// The revision the client read; nil to change whatever the todo's revision.
    public var revision: Int?

    var changesNothing: Bool { title == nil && completed == nil && order == nil }
}
