import Foundation
import Hummingbird
import ManagedRecord

/// The REST API over the store: every handler does its store work in one
/// ``StoreService/perform(_:)`` block — a private-queue context of the request's own — and
/// returns plain values. Errors are left to ``ErrorMappingMiddleware``.
///
/// | Method and path | Answer |
/// |---|---|
/// | `GET /todos?completed=&search=&sort=&limit=&offset=` | 200 ``TodoListResponse`` |
/// | `POST /todos` ``CreateTodoRequest`` | 201 ``TodoResponse``, `Location: /todos/<id>` |
/// | `GET /todos/:id` | 200 ``TodoResponse`` |
/// | `PATCH /todos/:id` ``UpdateTodoRequest`` | 200 ``TodoResponse`` |
/// | `DELETE /todos/:id` | 204 |
struct TodoRoutes: Sendable {
    let store: StoreService

    func add(to router: Router<BasicRequestContext>) {
        router.middlewares.add(ErrorMappingMiddleware())
        let todos = router.group("todos")
        todos.get(use: list)
        todos.post(use: create)
        todos.get(":id", use: get)
        todos.patch(":id", use: update)
        todos.delete(":id", use: delete)
    }

    @Sendable func list(_ request: Request, context: BasicRequestContext) async throws -> TodoListResponse {
        let query = try TodoQuery(request)
        return try await store.perform { context in
            let fetch = try query.fetchRequest()
            let total = try context.count(for: FetchRequest<Todo>(predicate: try query.predicate()))
            return TodoListResponse(items: try context.fetch(fetch).map(TodoResponse.init), total: total)
        }
    }

    @Sendable func create(_ request: Request, context: BasicRequestContext) async throws -> EditedResponse<TodoResponse> {
        let input = try await request.decode(as: CreateTodoRequest.self, context: context)
        let created = try await store.perform { context in
            let todo = Todo(context: context)
            todo.title = input.title
            if let completed = input.completed { todo.completed = completed }
            if let order = input.order { todo.order = order }
            try context.save()
            return TodoResponse(todo)
        }
        return EditedResponse(status: .created, headers: [.location: "/todos/\(created.id.uuidString)"], response: created)
    }

    @Sendable func get(_ request: Request, context: BasicRequestContext) async throws -> TodoResponse {
        let id = try Self.identifier(context)
        return try await store.perform { context in TodoResponse(try Self.todo(id, in: context)) }
    }

    @Sendable func update(_ request: Request, context: BasicRequestContext) async throws -> TodoResponse {
        let id = try Self.identifier(context)
        let input = try await request.decode(as: UpdateTodoRequest.self, context: context)
        if input.changesNothing {
            throw APIError(.badRequest, "the body changes nothing: give one or more of title, completed, order")
        }
        return try await store.perform { context in
            let todo = try Self.todo(id, in: context)
            if let revision = input.revision, revision != todo.revision {
                throw APIError(.conflict, "the todo is at revision \(todo.revision), not \(revision): another request changed it; read it again and retry")
            }
            if let title = input.title { todo.title = title }
            if let completed = input.completed { todo.completed = completed }
            if let order = input.order { todo.order = order }
            if todo.hasChanges { todo.revision += 1 }
            // A concurrent change of the same row between the fetch and this save is a
            // MergeConflictError (the context's merge policy is `.error`): a 409 as well.
            try context.save()
            return TodoResponse(todo)
        }
    }

    @Sendable func delete(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let id = try Self.identifier(context)
        try await store.perform { context in
            context.delete(try Self.todo(id, in: context))
            try context.save()
        }
        return Response(status: .noContent)
    }

    /// The todo's ID from the path: a UUID, or a 400.
    private static func identifier(_ context: BasicRequestContext) throws -> UUID {
        let text = context.parameters.get("id") ?? ""
        guard let id = UUID(uuidString: text) else {
            throw APIError(.badRequest, "'\(text)' is not a todo ID; IDs are UUIDs such as 3F2504E0-4F89-41D3-9A0C-0305E82C3301")
        }
        return id
    }

    /// The todo with `id` in `context`, or a 404.
    private static func todo(_ id: UUID, in context: ManagedObjectContext) throws -> Todo {
        var request = FetchRequest<Todo>(predicate: \Todo.$identifier == id)
        request.fetchLimit = 1
        guard let todo = try context.fetch(request).first else {
            throw APIError(.notFound, "no todo has the ID \(id.uuidString)")
        }
        return todo
    }
}
