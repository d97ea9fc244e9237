import CSQLite
import Foundation
import ObjectGraph
import Synchronization
import XCTest

// MARK: - The company model (API.md)

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \Employee.$department, deleteRule: .cascade)
    var employees: Set<Employee>
}

class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var hired: Date? = nil
    @Attribute var badge: UUID = UUID()
    @Attribute(.transient) var scratch: String? = nil
    @Relationship(deleteRule: .nullify) var department: Department?
    @Relationship var manager: Manager?
    var fullName: String { "\(firstName) \(lastName)" }
}

final class Manager: Employee {
    @Attribute var level: Int = 1
    @Relationship(inverse: \Employee.$manager) var reports: Set<Employee>
}

// MARK: - Every attribute type

struct Dimensions: Codable, Equatable {
    var width: Double
    var height: Double
    var labels: [String]
}

final class Specimen: ManagedObject {
    @Attribute var flag: Bool = false
    @Attribute var integer: Int = 0
    @Attribute var small: Int16 = 0
    @Attribute var medium: Int32 = 0
    @Attribute var large: Int64 = 0
    @Attribute var real: Double = 0
    @Attribute var single: Float = 0
    @Attribute var amount: Decimal = 0
    @Attribute var text: String = ""
    @Attribute var moment: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var bytes: Data = Data()
    @Attribute var identifier: UUID = UUID()
    @Attribute var link: URL = URL(string: "https://example.com/")!
    @Attribute var dimensions: Dimensions = Dimensions(width: 0, height: 0, labels: [])

    @Attribute var optionalFlag: Bool? = nil
    @Attribute var optionalInteger: Int? = nil
    @Attribute var optionalSmall: Int16? = nil
    @Attribute var optionalMedium: Int32? = nil
    @Attribute var optionalLarge: Int64? = nil
    @Attribute var optionalReal: Double? = nil
    @Attribute var optionalSingle: Float? = nil
    @Attribute var optionalAmount: Decimal? = nil
    @Attribute var optionalText: String? = nil
    @Attribute var optionalMoment: Date? = nil
    @Attribute var optionalBytes: Data? = nil
    @Attribute var optionalIdentifier: UUID? = nil
    @Attribute var optionalLink: URL? = nil
    @Attribute var optionalDimensions: Dimensions? = nil
}

// MARK: - Ordered and many-to-many relationships

final class Playlist: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(ordered: true, inverse: \Song.$playlist, deleteRule: .nullify)
    var songs: [Song]
    /// An ordered many-to-many (its inverse, Tag.featuredIn, is unordered).
    @Relationship(ordered: true, inverse: \Tag.$featuredIn) var featured: [Tag]
}

final class Song: ManagedObject {
    @Attribute var title: String = ""
    @Relationship var playlist: Playlist?
    @Relationship(inverse: \Tag.$songs) var tags: Set<Tag>
}

final class Tag: ManagedObject {
    @Attribute var label: String = ""
    @Relationship var songs: Set<Song>
    @Relationship var featuredIn: Set<Playlist>
}

// MARK: - Delete rules deny and noAction

final class Author: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Book.$author, deleteRule: .deny) var books: Set<Book>
}

final class Library: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Book.$library, deleteRule: .noAction) var books: Set<Book>
}

final class Book: ManagedObject {
    @Attribute var title: String = ""
    @Relationship(deleteRule: .nullify) var author: Author?
    @Relationship(deleteRule: .nullify) var library: Library?
}

// MARK: - Lifecycle hooks

/// Records every hook called on it (per instance) and validates its values.
final class Ticket: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var priority: Int = 0
    @Attribute var createdBy: String = ""
    @Attribute var saveCount: Int = 0
    @Attribute var locked: Bool = false
    var events: [String] = []

    override func awakeFromInsert() {
        super.awakeFromInsert()
        events.append("awakeFromInsert")
        createdBy = "awakeFromInsert"
    }

    override func awakeFromFetch() {
        super.awakeFromFetch()
        events.append("awakeFromFetch")
    }

    override func willSave() {
        super.willSave()
        events.append("willSave")
    }

    override func didSave() {
        super.didSave()
        events.append("didSave")
    }

    override func prepareForDeletion() {
        super.prepareForDeletion()
        events.append("prepareForDeletion")
    }

    override func validateForInsert() throws {
        try super.validateForInsert()
        events.append("validateForInsert")
        if title.isEmpty { throw ValidationError.Problem(self, key: "title", "a ticket needs a title") }
    }

    override func validateForUpdate() throws {
        try super.validateForUpdate()
        events.append("validateForUpdate")
        if priority < 0 { throw ValidationError.Problem(self, key: "priority", "priority cannot be negative") }
    }

    override func validateForDelete() throws {
        try super.validateForDelete()
        events.append("validateForDelete")
        if locked { throw ValidationError.Problem(self, key: "locked", "a locked ticket cannot be deleted") }
    }
}

// MARK: - Inheritance with a to-one pointing at an entity that has sub-entities

class Vehicle: ManagedObject {
    @Attribute var name: String = ""
    @Relationship var garage: Garage?
}

final class Truck: Vehicle {
    @Attribute var payload: Double = 0
}

final class Garage: ManagedObject {
    @Attribute var city: String = ""
    @Relationship(inverse: \Vehicle.$garage, deleteRule: .cascade) var vehicles: Set<Vehicle>
    @Relationship var favourite: Vehicle?
}

// MARK: - Entity lists

enum Models {
    static var company: [ManagedObject.Type] { [Department.self, Employee.self, Manager.self] }
    static var specimen: [ManagedObject.Type] { [Specimen.self] }
    static var music: [ManagedObject.Type] { [Playlist.self, Song.self, Tag.self] }
    static var books: [ManagedObject.Type] { [Author.self, Library.self, Book.self] }
    static var tickets: [ManagedObject.Type] { [Ticket.self] }
    /// Garage 1, Vehicle 2, Truck 3.
    static var vehicles: [ManagedObject.Type] { [Garage.self, Truck.self] }
    static var everything: [ManagedObject.Type] { company + specimen + music + books + tickets + vehicles }
}

// MARK: - Base class: a fresh temporary directory per test

class StoreTestCase: XCTestCase {
    /// A directory of this test's own, removed afterwards.
    private(set) var directory = URL(fileURLWithPath: "/nonexistent")

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ObjectGraphTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
        try super.tearDownWithError()
    }

    /// The default store file of this test.
    var storeURL: URL { directory.appendingPathComponent("Store.sqlite") }

    /// A container on `url` (this test's store by default). Create it in the test itself:
    /// its viewContext belongs to the calling thread.
    func makeContainer(_ entities: [ManagedObject.Type] = Models.everything, url: URL? = nil,
                       name: String = "Test") throws -> PersistentContainer {
        try PersistentContainer(name: name, entities: entities, storeURL: url ?? storeURL)
    }

    /// The one object of `type` whose objectID is `id` in `context`, typed.
    func object<T: ManagedObject>(_ type: T.Type, _ id: ObjectID, in context: ManagedObjectContext,
                                  file: StaticString = #filePath, line: UInt = #line) throws -> T {
        let object = try context.existingObject(with: id)
        return try XCTUnwrap(object as? T, "\(id) is a \(Swift.type(of: object)), not a \(T.self)", file: file, line: line)
    }

    /// `id` (from another container on the same file) as an ID of `container`'s store.
    func translate(_ id: ObjectID, to container: PersistentContainer,
                   file: StaticString = #filePath, line: UInt = #line) throws -> ObjectID {
        try XCTUnwrap(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: id.uriRepresentation),
                      "\(id) does not name an object of \(container.name)", file: file, line: line)
    }

    /// Every object of `T`, sorted by `key`.
    func fetchAll<T: ManagedObject>(_ type: T.Type, in context: ManagedObjectContext, sortedBy key: String? = nil) throws -> [T] {
        var request = FetchRequest<T>()
        if let key { request.sortDescriptors = [SortKey(key)] }
        return try context.fetch(request)
    }
}

// MARK: - SQL recorder

/// Records the SQL a coordinator runs, through `PersistentStoreCoordinator.sqlTrace`.
final class SQLRecorder: Sendable {
    private let log = Mutex<[String]>([])

    init(_ coordinator: PersistentStoreCoordinator) {
        coordinator.sqlTrace = { [self] sql in self.log.withLock { $0.append(sql) } }
    }

    var statements: [String] { log.withLock { $0 } }
    /// The queries recorded (statements starting with SELECT).
    var selects: [String] { statements.filter { $0.uppercased().hasPrefix("SELECT") } }
    /// The writes recorded.
    var writes: [String] {
        statements.filter { sql in ["INSERT", "UPDATE", "DELETE"].contains { sql.uppercased().hasPrefix($0) } }
    }

    func reset() { log.withLock { $0.removeAll() } }
}

// MARK: - Reading store files with the SQLite C API

/// One value of a SQLite row, as stored.
enum Cell: Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return "\(v)"
        case .real(let v): return "\(v)"
        case .text(let v): return "'\(v)'"
        case .blob(let v): return "x'\(v.map { String(format: "%02x", $0) }.joined())'"
        }
    }

    var int: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    var double: Double? { if case .real(let v) = self { return v } else if case .integer(let v) = self { return Double(v) } else { return nil } }
    var string: String? { if case .text(let v) = self { return v } else { return nil } }
    var data: Data? { if case .blob(let v) = self { return v } else { return nil } }
}

struct SQLiteFileError: Error, CustomStringConvertible {
    let description: String
}

/// A read-only connection to a store file, independent of the library.
final class SQLiteFile {
    private let handle: OpaquePointer

    init(_ url: URL, readOnly: Bool = true) throws {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let code = sqlite3_open_v2(url.path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw SQLiteFileError(description: "cannot open \(url.path): \(code)")
        }
        self.handle = handle
    }

    deinit { sqlite3_close_v2(handle) }

    /// Rows of `sql`, each column as stored.
    func rows(_ sql: String) throws -> [[Cell]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteFileError(description: "cannot prepare \(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[Cell]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw SQLiteFileError(description: "\(sql) failed: \(String(cString: sqlite3_errmsg(handle)))")
            }
            var row: [Cell] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    let pointer = sqlite3_column_text(statement, column)!
                    row.append(.text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let pointer = sqlite3_column_blob(statement, column) {
                        row.append(.blob(Data(bytes: pointer, count: count)))
                    } else {
                        row.append(.blob(Data()))
                    }
                default: row.append(.null)
                }
            }
            result.append(row)
        }
        return result
    }

    /// The first column of the first row.
    func scalar(_ sql: String) throws -> Cell? { try rows(sql).first?.first }

    /// Runs statements that return nothing (used to build foreign files).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw SQLiteFileError(description: "\(sql) failed: \(text)")
        }
    }

    func tableNames() throws -> [String] {
        try rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
    }

    func indexNames() throws -> [String] {
        try rows("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name")
            .compactMap { $0[0].string }
    }

    /// Column names of `table`, in order.
    func columns(of table: String) throws -> [String] {
        try rows("PRAGMA table_info(\(table))").compactMap { $0[1].string }
    }

    /// Declared column types of `table`, by name.
    func columnTypes(of table: String) throws -> [String: String] {
        var types: [String: String] = [:]
        for row in try rows("PRAGMA table_info(\(table))") { types[row[1].string ?? ""] = row[2].string ?? "" }
        return types
    }

    /// Every table's rows, in a stable order: what the store holds, for before/after comparisons.
    func dump() throws -> [String: [[Cell]]] {
        var result: [String: [[Cell]]] = [:]
        for table in try tableNames() {
            let count = try columns(of: table).count
            let order = (1...max(1, count)).map(String.init).joined(separator: ", ")
            result[table] = try rows("SELECT * FROM \(table) ORDER BY \(order)")
        }
        return result
    }

    static func dump(_ url: URL) throws -> [String: [[Cell]]] { try SQLiteFile(url).dump() }
}

// MARK: - Fixtures

enum Fixtures {
    /// Tests/Fixtures, found from this file's location (the `Tests` folder above it, so the
    /// file may sit in any subfolder of its target).
    static var directory: URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.lastPathComponent != "Tests", folder.pathComponents.count > 1 {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("Fixtures", isDirectory: true)
    }

    /// Copies `folder/file` into `destination` (a temporary directory) and returns the copy.
    static func copy(_ folder: String, _ file: String, into destination: URL) throws -> URL {
        let source = directory.appendingPathComponent(folder).appendingPathComponent(file)
        let target = destination.appendingPathComponent(file)
        try FileManager.default.copyItem(at: source, to: target)
        // Fixture files are read-only in the repository; the copy must be writable.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        return target
    }
}

extension Date {
    /// A date in 2001-01-01-based seconds, as Core Data stores it.
    init(coreDataSeconds seconds: Double) { self.init(timeIntervalSinceReferenceDate: seconds) }
}

// MARK: - Models of the Apple Core Data fixtures (Tests/Fixtures), declared from their Xcode XML

/// The `Color` transformable of CoreDataPlus's Car (always NULL in the fixture).
struct SampleColor: Codable, Equatable {
    var name: String
}

/// CoreDataPlus `Car` (SampleModel.xcdatamodel).
class SampleCar: ManagedObject {
    override class var entityName: String { "Car" }
    @Attribute var color: SampleColor? = nil
    @Attribute(.transient) var currentDrivingSpeed: Int64? = 0
    @Attribute var maker: String? = nil
    @Attribute var markedForDeletionAsOf: Date? = nil
    @Attribute var model: String? = nil
    @Attribute var numberPlate: String = ""
    @Relationship(deleteRule: .nullify) var owner: SamplePerson?
}

class SampleSportCar: SampleCar {
    override class var entityName: String { "SportCar" }
}

final class SampleExpensiveSportCar: SampleSportCar {
    override class var entityName: String { "ExpensiveSportCar" }
    @Attribute var isLimitedEdition: Bool? = false
}

/// CoreDataPlus `Person`.
final class SamplePerson: ManagedObject {
    override class var entityName: String { "Person" }
    @Attribute var firstName: String? = nil
    @Attribute var id: UUID = UUID()
    @Attribute(.transient) var isDriving: Bool = false
    @Attribute var lastName: String? = nil
    @Attribute var updatedAt: Date = Date()
    @Relationship(inverse: \SampleCar.$owner, deleteRule: .nullify) var cars: Set<SampleCar>
}

/// TavantTrade `FeedbackCategory` (framework version 479).
final class FeedbackCategory: ManagedObject {
    @Attribute var name: String? = nil
    @Relationship(inverse: \FeedbackSubCategory.$category, deleteRule: .nullify) var subcategory: Set<FeedbackSubCategory>
}

final class FeedbackSubCategory: ManagedObject {
    @Attribute var name: String? = nil
    @Relationship(deleteRule: .nullify) var category: FeedbackCategory?
}

/// EasyLife 1.5.0 `Project`.
final class EasyProject: ManagedObject {
    override class var entityName: String { "Project" }
    @Attribute var name: String? = nil
    @Attribute var priority: Int16? = -1
    @Relationship(inverse: \EasyTodoItem.$project, deleteRule: .nullify) var todoItem: Set<EasyTodoItem>
}

/// EasyLife 1.5.0 `TodoItem`, with the self-referencing many-to-many blockedBy <-> blocking.
final class EasyTodoItem: ManagedObject {
    override class var entityName: String { "TodoItem" }
    @Attribute var date: Date? = nil
    @Attribute var done: Bool? = nil
    @Attribute var name: String? = nil
    @Attribute var notes: String? = nil
    @Attribute var repeats: Int16? = 0
    @Relationship(deleteRule: .nullify) var blockedBy: Set<EasyTodoItem>
    @Relationship(inverse: "blockedBy", deleteRule: .nullify) var blocking: Set<EasyTodoItem>
    @Relationship(deleteRule: .nullify) var project: EasyProject?
}

/// MigrationRevised model v1 `Post`.
final class PostV1: ManagedObject {
    override class var entityName: String { "Post" }
    @Attribute var color: String? = nil
    @Attribute var content: String? = nil
    @Attribute var date: Date? = nil
    @Attribute var postID: String? = nil
}

/// MigrationRevised model v2 `Post`.
final class PostV2: ManagedObject {
    override class var entityName: String { "Post" }
    @Attribute var content: String? = nil
    @Attribute var date: Date? = nil
    @Attribute var hexColor: String? = nil
    @Attribute var postID: String? = nil
}

/// MigrationRevised model v3 `Post` and `Section`.
final class PostV3: ManagedObject {
    override class var entityName: String { "Post" }
    @Attribute var date: Date? = nil
    @Attribute var hexColor: String? = nil
    @Attribute var postID: String? = nil
    @Relationship(inverse: \SectionV3.$post, deleteRule: .cascade) var sections: Set<SectionV3>
}

final class SectionV3: ManagedObject {
    override class var entityName: String { "Section" }
    @Attribute var body: String? = nil
    @Attribute var index: Int16? = 0
    @Attribute var title: String? = nil
    @Relationship(deleteRule: .nullify) var post: PostV3?
}
