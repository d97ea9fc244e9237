import Foundation
import ObjectGraph

// Lightweight migration: a store written with version 1 of a model opens with version 2,
// and is migrated as Core Data infers it — renames, type conversions, a now-required
// attribute, a new attribute — all or nothing, with progress. Self-contained: its own model
// and its own store, Notes.sqlite, in the demo's folder.

/// Version 1 of the notes model.
private final class NoteV1: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var title: String = ""
    @Attribute var body: String = ""
    @Attribute var priority: Int = 0
    @Attribute var stars: String = ""
    @Attribute var tag: String? = nil
    @Attribute var written: Date = Date()
}

/// Version 2: `body` renamed `text`, `priority` narrowed to Int16, `stars` from text to a
/// number, `tag` required with a default, `pinned` new.
private final class NoteV2: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var title: String = ""
    @Attribute(originalName: "body") var text: String = ""
    @Attribute var priority: Int16 = 0
    @Attribute var stars: Int = 0
    @Attribute var tag: String = "inbox"
    @Attribute var pinned: Bool = false
    @Attribute var written: Date = Date()
}

/// A version Core Data cannot infer a mapping to: a date that becomes a number.
private final class NoteWithNumericDate: ManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var title: String = ""
    @Attribute var written: Double = 0
}

extension DemoSection {
    static let migration = DemoSection("migration", "a store of version 1 migrated to version 2, as Core Data infers it") { demo in
        try migrateNotes(folder: demo.folder)
        demo.shell("check", demo.folder.appendingPathComponent("Notes.sqlite").path)
    }
}

@MainActor
private func migrateNotes(folder: URL) throws {
    let url = folder.appendingPathComponent("Notes.sqlite")

    step("Migration: a store written with version 1 of a model")
    do {
        let container = try PersistentContainer(name: "Notes", entities: [NoteV1.self], storeURL: url)
        for (title, stars, tag) in [("Groceries", "4", "home"), ("Taxes", "5", nil), ("Ideas", " 3 ", nil)] {
            let note = NoteV1(context: container.viewContext)
            note.title = title
            note.body = "about \(title.lowercased())"
            note.priority = 2
            note.stars = stars
            note.tag = tag
        }
        try container.viewContext.save()
        say("3 notes saved with version 1 (body, priority: Int, stars as text, tag optional)")
    }
    let v2 = try ManagedObjectModel(entities: [NoteV2.self])
    let needed = try PersistentStoreCoordinator.requiresMigration(model: v2, storeURL: url)
    say("requiresMigration(model: v2) = \(needed)")
    expect(needed, "a store of version 1 needs migrating to version 2")

    step("A change that cannot be inferred stops, and the store is left byte for byte as it was")
    let before = FileManager.default.contents(atPath: url.path)
    do {
        _ = try PersistentContainer(name: "Notes", entities: [NoteWithNumericDate.self], storeURL: url)
        expect(false, "a date that becomes a number is not inferable")
    } catch let error as MigrationError {
        say("MigrationError .\(error.code) for \(error.entity ?? "?").\(error.property ?? "?")")
        expect(error.code == .notInferable && error.property == "written", "the error names Note.written")
    }
    expect(FileManager.default.contents(atPath: url.path) == before, "the store file is unchanged")
    say("store file unchanged: yes")

    step("Opening with version 2 migrates the store, reporting progress")
    let container = try PersistentContainer(name: "Notes", model: v2, location: .file(url), migrationProgress: { progress in
        say("progress: \(progress.completedRows) of \(progress.totalRows) rows\(progress.entity.map { " (\($0))" } ?? ", done")")
    })
    var request = FetchRequest<NoteV2>()
    request.sortDescriptors = [SortKey("title")]
    let notes = try container.viewContext.fetch(request)
    for note in notes {
        say("\(note.title): text \"\(note.text)\", priority \(note.priority), stars \(note.stars), tag \(note.tag), pinned \(note.pinned)")
    }
    expect(notes.map(\.text) == ["about groceries", "about ideas", "about taxes"], "body was renamed text, values kept")
    expect(notes.map(\.stars) == [4, 3, 5], "stars converted from text to numbers")
    expect(notes.map(\.tag) == ["home", "inbox", "inbox"], "a missing tag became the default")
    let still = try PersistentStoreCoordinator.requiresMigration(model: v2, storeURL: url)
    say("requiresMigration(model: v2) afterwards = \(still)")
    expect(!still, "the migrated store was written by version 2 now")
}
