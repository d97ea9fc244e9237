// The fuzz target's model and the code one input runs (main.swift has the entry point).
import Foundation
import ObjectGraph

final class Shelf: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var capacity: Int = 0
    @Relationship(ordered: true, inverse: \Book.$shelf, deleteRule: .cascade) var books: [Book]
}

final class Book: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var pages: Int = 0
    @Attribute var price: Double = 0
    @Attribute var published: Date? = nil
    @Attribute var isbn: UUID = UUID()
    @Relationship var shelf: Shelf?
    @Relationship(inverse: \Label.$books) var labels: Set<Label>
}

final class Label: ManagedObject {
    @Attribute var name: String = ""
    @Relationship var books: Set<Book>
}

let storeEntities: [ManagedObject.Type] = [Shelf.self, Book.self, Label.self]

/// Where each input is written: memory-backed when /dev/shm exists.
let inputURL: URL = {
    let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
        : FileManager.default.temporaryDirectory
    return folder.appendingPathComponent("StoreFileFuzzer-\(getpid()).sqlite")
}()

private func removeInput() {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: inputURL.path + suffix) }
}

/// Opens `bytes` as a store and reads everything in it. Errors are expected; crashes are not.
func runStoreInput(_ bytes: UnsafeBufferPointer<UInt8>) {
    removeInput()
    defer { removeInput() }
    guard FileManager.default.createFile(atPath: inputURL.path, contents: Data(buffer: bytes)) else {
        fatalError("cannot write \(inputURL.path)")
    }
    guard let container = try? PersistentContainer(name: "StoreFuzz", entities: storeEntities, storeURL: inputURL) else { return }
    defer { container.persistentStoreCoordinator.close() }
    let context = container.newBackgroundContext()
    context.performAndWait {
        var shelves = FetchRequest<Shelf>()
        shelves.relationshipKeyPathsForPrefetching = ["books"]
        if let found = try? context.fetch(shelves) {
            for shelf in found { _ = (shelf.title, shelf.capacity, shelf.books.count) }
        }
        var books = FetchRequest<Book>()
        books.relationshipKeyPathsForPrefetching = ["labels"]
        if let found = try? context.fetch(books) {
            for book in found { _ = (book.title, book.pages, book.price, book.published, book.isbn, book.labels.count) }
        }
        _ = try? context.count(for: FetchRequest<Label>())
    }
}

/// Writes a small store with every kind of row to `folder`, as the fuzzer's seed.
func writeSeed(to folder: URL) throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("seed.sqlite")
    let container = try PersistentContainer(name: "StoreFuzz", entities: storeEntities, storeURL: url)
    let context = container.newBackgroundContext()
    try context.performAndWait {
        let labels = (0..<3).map { index -> Label in
            let label = Label(context: context)
            label.name = "label \(index)"
            return label
        }
        for index in 0..<3 {
            let shelf = Shelf(context: context)
            shelf.title = "shelf \(index)"
            shelf.capacity = 10 * index
            for number in 0..<4 {
                let book = Book(context: context)
                book.title = "book \(index)-\(number)"
                book.pages = 100 + number
                book.price = Double(number) * 1.5
                book.published = number % 2 == 0 ? Date(timeIntervalSinceReferenceDate: 1e8) : nil
                shelf.books.append(book)
                book.labels = Set(labels.prefix(number))
            }
        }
        try context.save()
    }
    container.persistentStoreCoordinator.close()
}
