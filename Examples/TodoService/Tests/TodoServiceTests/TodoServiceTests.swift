import Foundation
import ManagedRecord
import NIOHTTP1
import TodoService
import XCTest

/// The service end to end: a real server on 127.0.0.1 and a real HTTP client, on SQLite and,
/// with `MANAGEDRECORD_POSTGRES_URL`, on PostgreSQL. Each scenario is written once and run
/// on both stores.
final class TodoServiceTests: XCTestCase {
    func testCRUDRoundTripOnSQLite() async throws { try await run(crudRoundTrip, on: .sqlite()) }
    func testCRUDRoundTripOnPostgreSQL() async throws { try await run(crudRoundTrip, on: .postgres()) }

    func testBadInputIs4xxAndConflictsAre409OnSQLite() async throws { try await run(errorMapping, on: .sqlite()) }
    func testBadInputIs4xxAndConflictsAre409OnPostgreSQL() async throws { try await run(errorMapping, on: .postgres()) }

    func testFiftyConcurrentCreatesAreAllStoredOnSQLite() async throws { try await run(concurrentCreates, on: .sqlite()) }
    func testFiftyConcurrentCreatesAreAllStoredOnPostgreSQL() async throws { try await run(concurrentCreates, on: .postgres()) }

    func testConcurrentUpdatesOfOneRevisionOneWinsOnSQLite() async throws { try await run(concurrentUpdates, on: .sqlite()) }
    func testConcurrentUpdatesOfOneRevisionOneWinsOnPostgreSQL() async throws { try await run(concurrentUpdates, on: .postgres()) }

    func testGracefulShutdownDuringWritesLosesNothingOnSQLite() async throws { try await shutdownDuringWrites(on: .sqlite()) }
    func testGracefulShutdownDuringWritesLosesNothingOnPostgreSQL() async throws { try await shutdownDuringWrites(on: .postgres()) }

    // MARK: Scenarios

    private func run(_ scenario: (API) async throws -> Void, on store: TestStore) async throws {
        defer { XCTAssertNoThrow(try store.remove()) }
        try await TestServer.with(store.store) { server in try await scenario(server.api) }
    }

    private func crudRoundTrip(_ api: API) async throws {
        let milk = try await api.create(#"{"title": "Buy milk", "order": 2}"#)
        XCTAssertEqual(milk.status, 201)
        let created = try milk.decode(TodoResponse.self)
        XCTAssertEqual(milk.headers.first(name: "Location"), "/todos/\(created.id.uuidString)")
        XCTAssertEqual([created.title, "\(created.completed)", "\(created.order)", "\(created.revision)"], ["Buy milk", "false", "2", "1"])
        XCTAssertNoThrow(try Date(created.createdAt, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)), created.createdAt)
        XCTAssertTrue(created.createdAt.hasSuffix("Z"), "no time zone in \(created.createdAt)")
        let report = try await api.create(#"{"title": "Write report", "order": 1, "completed": true}"#)
        XCTAssertEqual(report.status, 201)

        func titles(_ query: String) async throws -> ([String], Int) {
            let reply = try await api.send(.GET, "/todos" + query)
            XCTAssertEqual(reply.status, 200, query)
            let list = try reply.decode(TodoListResponse.self)
            return (list.items.map(\.title), list.total)
        }
        var (list, total) = try await titles("")
        XCTAssertEqual(list, ["Write report", "Buy milk"])          // by order
        XCTAssertEqual(total, 2)
        (list, _) = try await titles("?completed=false")
        XCTAssertEqual(list, ["Buy milk"])
        (list, _) = try await titles("?search=REPORT")
        XCTAssertEqual(list, ["Write report"])
        (list, _) = try await titles("?search=%25")                 // "%" and "_" are text, not wildcards
        XCTAssertEqual(list, [])
        (list, _) = try await titles("?search=_")
        XCTAssertEqual(list, [])
        (list, _) = try await titles("?sort=-title")
        XCTAssertEqual(list, ["Write report", "Buy milk"])
        (list, _) = try await titles("?sort=completed,title")
        XCTAssertEqual(list, ["Buy milk", "Write report"])
        (list, total) = try await titles("?limit=1&offset=1")
        XCTAssertEqual(list, ["Buy milk"])
        XCTAssertEqual(total, 2)

        let path = "/todos/\(created.id.uuidString)"
        let read = try await api.send(.GET, path)
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(try read.decode(TodoResponse.self), created)

        let patched = try await api.send(.PATCH, path, json: #"{"completed": true, "revision": 1}"#)
        XCTAssertEqual(patched.status, 200)
        let done = try patched.decode(TodoResponse.self)
        XCTAssertEqual([done.title, "\(done.completed)", "\(done.order)", "\(done.revision)"], ["Buy milk", "true", "2", "2"])
        XCTAssertEqual(done.createdAt, created.createdAt)
        let reread = try await api.send(.GET, path)
        XCTAssertEqual(try reread.decode(TodoResponse.self), done)
        let unchanged = try await api.send(.PATCH, path, json: #"{"completed": true}"#)   // the same value: no new revision
        XCTAssertEqual(try unchanged.decode(TodoResponse.self).revision, 2)

        let deleted = try await api.send(.DELETE, path)
        XCTAssertEqual(deleted.status, 204)
        let gone = try await api.send(.GET, path)
        XCTAssertEqual(gone.status, 404)
        let goneAgain = try await api.send(.DELETE, path)
        XCTAssertEqual(goneAgain.status, 404)
        (list, total) = try await titles("")
        XCTAssertEqual(list, ["Write report"])
        XCTAssertEqual(total, 1)
    }

    private func errorMapping(_ api: API) async throws {
        func expect(_ status: Int, _ method: HTTPMethod, _ path: String, _ json: String? = nil, fields: [String]? = nil,
                    line: UInt = #line) async throws {
            let reply = try await api.send(method, path, json: json)
            XCTAssertEqual(reply.status, status, "\(method) \(path) \(json ?? ""): \(String(decoding: reply.body, as: UTF8.self))", line: line)
            XCTAssertFalse(reply.errorMessage?.isEmpty ?? true, "no message in \(String(decoding: reply.body, as: UTF8.self))", line: line)
            if let fields { XCTAssertEqual(reply.problemFields.sorted(), fields, line: line) }
        }
        // JSON that is not a todo: 400.
        try await expect(400, .POST, "/todos", "{")
        try await expect(400, .POST, "/todos", "{}")
        try await expect(400, .POST, "/todos", #"{"title": 5}"#)
        try await expect(400, .POST, "/todos", #"{"title": "x", "order": 1e30}"#)
        // A todo the model refuses: 422, naming the field.
        try await expect(422, .POST, "/todos", #"{"title": ""}"#, fields: ["title"])
        try await expect(422, .POST, "/todos", #"{"title": "\#(String(repeating: "x", count: 201))"}"#, fields: ["title"])
        try await expect(422, .POST, "/todos", #"{"title": "   "}"#, fields: ["title"])
        try await expect(422, .POST, "/todos", #"{"title": "a\u0000b"}"#, fields: ["title"])
        try await expect(422, .POST, "/todos", #"{"title": "ok", "order": -1}"#, fields: ["order"])
        try await expect(422, .POST, "/todos", #"{"title": "", "order": 1000001}"#, fields: ["order", "title"])

        // Uniqueness: a second "Dup" is a 409, by POST or PATCH.
        let first = try await api.create(#"{"title": "Dup"}"#)
        XCTAssertEqual(first.status, 201)
        try await expect(409, .POST, "/todos", #"{"title": "Dup"}"#)
        let other = try await api.create(#"{"title": "Other"}"#).decode(TodoResponse.self)
        let path = "/todos/\(other.id.uuidString)"
        try await expect(409, .PATCH, path, #"{"title": "Dup"}"#)
        // A stale revision: 409. Nothing to change: 400. A refused change leaves the todo as it was.
        try await expect(409, .PATCH, path, #"{"completed": true, "revision": 7}"#)
        try await expect(400, .PATCH, path, "{}")
        try await expect(422, .PATCH, path, #"{"title": ""}"#, fields: ["title"])
        let afterRefusals = try await api.send(.GET, path)
        XCTAssertEqual(try afterRefusals.decode(TodoResponse.self), other)

        // IDs and query parameters.
        try await expect(400, .GET, "/todos/not-a-uuid")
        let unknown = "/todos/\(UUID().uuidString)"
        try await expect(404, .GET, unknown)
        try await expect(404, .PATCH, unknown, #"{"completed": true}"#)
        try await expect(404, .DELETE, unknown)
        try await expect(400, .GET, "/todos?completed=maybe")
        try await expect(400, .GET, "/todos?sort=salary")
        try await expect(400, .GET, "/todos?sort=title,")
        try await expect(400, .GET, "/todos?limit=0")
        try await expect(400, .GET, "/todos?offset=-1")
        try await expect(400, .GET, "/todos?colour=red")

        // Nothing refused was half-written.
        let all = try await api.send(.GET, "/todos?sort=title").decode(TodoListResponse.self)
        XCTAssertEqual(all.items.map(\.title), ["Dup", "Other"])
    }

    private func concurrentCreates(_ api: API) async throws {
        let titles = (0..<50).map { "Concurrent \($0)" }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for title in titles {
                group.addTask { try await api.create(#"{"title": "\#(title)"}"#).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 201, count: 50))
        let list = try await api.send(.GET, "/todos").decode(TodoListResponse.self)
        XCTAssertEqual(list.total, 50)
        XCTAssertEqual(Set(list.items.map(\.title)), Set(titles))
        XCTAssertEqual(Set(list.items.map(\.id)).count, 50)
    }

    /// Ten PATCHes of one todo, all sent with the revision read before any of them: whatever
    /// the interleaving, exactly one wins and the others are told 409 — by the revision check
    /// when they read after the winner's save, by the save's optimistic locking
    /// (`MergeConflictError`) when they read before it.
    private func concurrentUpdates(_ api: API) async throws {
        let todo = try await api.create(#"{"title": "Contended"}"#).decode(TodoResponse.self)
        let path = "/todos/\(todo.id.uuidString)"
        let replies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<10 {
                group.addTask {
                    (try await api.send(.PATCH, path, json: #"{"title": "Version \#(index)", "revision": 1}"#).status, "Version \(index)")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = replies.filter { $0.0 == 200 }
        XCTAssertEqual(winners.count, 1, "\(replies)")
        XCTAssertEqual(replies.filter { $0.0 == 409 }.count, 9, "\(replies)")
        let final = try await api.send(.GET, path).decode(TodoResponse.self)
        XCTAssertEqual(final.revision, 2)
        XCTAssertEqual(final.title, winners.first?.1)
    }

    /// Four clients write as fast as they can; after the 40th acknowledged write the service
    /// is shut down gracefully (as SIGTERM does), while writes are under way. Every write that
    /// was answered 2xx must be in the store when it is opened again, and every stored todo
    /// must be one a client sent; the service must have closed the store.
    private func shutdownDuringWrites(on store: TestStore) async throws {
        defer { XCTAssertNoThrow(try store.remove()) }
        let server = try await TestServer.start(store.store)
        let (acks, ackSink) = AsyncStream.makeStream(of: Void.self)
        let writers = Task {
            try await withThrowingTaskGroup(of: (sent: [String], acknowledged: [String]).self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var sent: [String] = [], acknowledged: [String] = []
                        for number in 0..<5_000 {
                            let title = "writer \(writer) todo \(number)"
                            sent.append(title)
                            guard let reply = try? await server.api.create(#"{"title": "\#(title)"}"#) else { break }  // the server has gone
                            if reply.status == 503 { break }                                                        // shutting down
                            XCTAssertEqual(reply.status, 201, String(decoding: reply.body, as: UTF8.self))
                            guard reply.status == 201 else { break }
                            acknowledged.append(title)
                            ackSink.yield()
                        }
                        return (sent, acknowledged)
                    }
                }
                defer { ackSink.finish() }
                return try await group.reduce(into: (sent: [String](), acknowledged: [String]())) {
                    $0.sent += $1.sent
                    $0.acknowledged += $1.acknowledged
                }
            }
        }
        var count = 0
        for await _ in acks {
            count += 1
            if count == 40 { break }
        }
        XCTAssertEqual(count, 40, "the writers stopped before 40 writes were acknowledged")
        await server.group.triggerGracefulShutdown()
        try await server.running.value
        let (sent, acked) = try await writers.value
        try await server.api.client.shutdown()
        XCTAssertTrue(server.app.store.isClosed, "the service group ended without closing the store")

        let stored = try TodoApp.openContainer(store.store).performBackgroundTask { context in
            try context.fetch(FetchRequest<Todo>()).map(\.title)
        }
        XCTAssertGreaterThanOrEqual(acked.count, 40)
        let missing = Set(acked).subtracting(stored)
        XCTAssertTrue(missing.isEmpty, "acknowledged with 201 but not in the store: \(missing.sorted())")
        XCTAssertTrue(Set(stored).isSubset(of: sent), "stored but never sent: \(Set(stored).subtracting(sent).sorted())")
        XCTAssertEqual(Set(stored).count, stored.count)
    }
}
