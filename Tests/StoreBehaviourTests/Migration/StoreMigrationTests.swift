import Foundation
import ManagedRecord
import ObjectGraph
import Testing

/// Lightweight and staged migration on both stores: the same inference, the same typed
/// errors, the same data after it. On PostgreSQL each move runs in one transaction under the
/// schema's advisory lock (docs/migration.md); a failed one leaves the store at its version.
@Suite("Migration on both stores", .onOwnThreads)
struct StoreMigrationTests {
    private func open(_ store: TestStore, _ model: ManagedObjectModel, options: PersistentContainer.Options = [],
                      stages: StagedMigrationManager? = nil) throws -> PersistentContainer {
        try PersistentContainer(name: "Library", model: model, location: store.location, options: options, stagedMigration: stages)
    }

    /// Three books of version 1, two with a surname, one with a note.
    private func writeBooks(_ store: TestStore) throws {
        let container = try open(store, ManagedObjectModel(entities: [MigBookV1.self, MigAuthorV1.self]))
        defer { container.persistentStoreCoordinator.close() }
        for (index, title) in ["one", "two", "three"].enumerated() {
            let book = MigBookV1(context: container.viewContext)
            book.title = title
            book.count = 7 + index
            book.note = index == 1 ? "kept" : nil
            book.obsolete = "gone"
            book.surname = "Name\(index)"
        }
        MigAuthorV1(context: container.viewContext).name = "Ada"
        try container.viewContext.save()
    }

    @Test("Persistent history survives a migration: tokens read on, changes name the migrated entities", arguments: StoreKind.allCases)
    func historySurvivesMigration(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let first = try open(store, ManagedObjectModel(entities: [MigBookV1.self, MigAuthorV1.self]), options: [.persistentHistory])
        let book = MigBookV1(context: first.viewContext)
        book.title = "one"
        MigAuthorV1(context: first.viewContext).name = "Ada"
        first.viewContext.transactionAuthor = "v1"
        try first.viewContext.save()
        let token = try #require(try first.history(after: nil).last?.token)
        first.viewContext.transactionAuthor = nil
        book.count = 2
        try first.viewContext.save()
        first.persistentStoreCoordinator.close()

        // Version 2 drops Author (declared with the option), so Book is numbered anew.
        let second = try open(store, ManagedObjectModel(entities: [MigBookAdded.self]), options: [.persistentHistory, .allowsDroppingData])
        defer { second.persistentStoreCoordinator.close() }
        let migrated = try #require(try second.viewContext.fetch(FetchRequest<MigBookAdded>()).first)
        let history = try second.history(after: nil)
        #expect(history.map(\.author) == ["v1", nil], "both transactions written before the migration are still there")
        #expect(history.first?.changes.map(\.changedObjectID) == [migrated.objectID],
                "the insert names the migrated book; the dropped entity's change went with it")
        #expect(history.last?.changes.map(\.changeType) == [.update])
        #expect(try second.history(after: token).count == 1, "a token taken before the migration reads on")
        migrated.title = "uno"
        try second.viewContext.save()
        #expect(try second.history(after: token).count == 2)
    }

    @Test("ManagedRecord.setUp that migrated the store says so in doesRequireMigration()", arguments: StoreKind.allCases)
    func setUpReportsItsMigration(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try writeBooks(store)
        let model = "StoreMigrationSetUp-\(kind)"
        let manager = try ManagedRecord.setUp(model: model, entities: [MigBookAdded.self, MigAuthorV1.self], store: store.location,
                                              options: kind.containerOptions)
        defer { ManagedRecord.tearDown(model: model) }
        #expect(try manager.doesRequireMigration(), "setUp found the store at version 1 and migrated it")
        let again = try ManagedRecord.setUp(model: model, entities: [MigBookAdded.self, MigAuthorV1.self], store: store.location,
                                            options: kind.containerOptions)
        #expect(try !again.doesRequireMigration(), "the second setUp found it migrated")
    }

    @Test("An added attribute gets its default in the old rows", arguments: StoreKind.allCases)
    func addedAttributeWithDefault(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try writeBooks(store)
        let container = try open(store, ManagedObjectModel(entities: [MigBookAdded.self, MigAuthorV1.self]))
        defer { container.persistentStoreCoordinator.close() }
        let books = try container.viewContext.fetch(FetchRequest<MigBookAdded>(sortDescriptors: [SortKey("count")]))
        #expect(books.map(\.title) == ["one", "two", "three"])
        #expect(books.map(\.added) == [5, 5, 5])
        #expect(books.map(\.note) == [nil, "kept", nil])
        let book = MigBookAdded(context: container.viewContext)
        book.title = "four"
        try container.viewContext.save()
        #expect(try container.viewContext.count(for: FetchRequest<MigBookAdded>()) == 4, "the migrated store takes new rows")
    }

    @Test("A removed attribute holding data is refused unless dropping is allowed", arguments: StoreKind.allCases)
    func removedAttributeIsRefused(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try writeBooks(store)
        let v2 = try ManagedObjectModel(entities: [MigBookV2.self, MigAuthorV2.self])
        #expect {
            try open(store, v2)
        } throws: { error in
            let migration = error as? MigrationError
            return migration?.code == .wouldDropData && migration?.droppedData.map(\.description).joined().contains("obsolete") == true
        }
        let v1 = try open(store, ManagedObjectModel(entities: [MigBookV1.self, MigAuthorV1.self]), options: [.readOnly])
        #expect(try v1.viewContext.fetch(FetchRequest<MigBookV1>()).map(\.obsolete) == ["gone", "gone", "gone"], "the store is still at version 1")
        v1.persistentStoreCoordinator.close()
    }

    @Test("Renamed, narrowed, removed, defaulted attributes and an added relationship migrate", arguments: StoreKind.allCases)
    func everyMainChangeMigrates(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try writeBooks(store)
        let container = try open(store, ManagedObjectModel(entities: [MigBookV2.self, MigAuthorV2.self]), options: [.allowsDroppingData])
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        let books = try context.fetch(FetchRequest<MigBookV2>(sortDescriptors: [SortKey("count")]))
        #expect(books.map(\.title) == ["one", "two", "three"])
        #expect(books.map(\.count) == [7, 8, 9], "Integer 64 narrowed to Integer 16")
        #expect(books.map(\.note) == ["none", "kept", "none"], "optional to required: the default fills the nils")
        #expect(books.map(\.familyName) == ["Name0", "Name1", "Name2"], "renamed by its renaming identifier")
        #expect(books.map(\.added) == [5, 5, 5])
        #expect(books.allSatisfy { $0.author == nil })
        let ada = try #require(try context.fetch(FetchRequest<MigAuthorV2>()).first)
        books[0].author = ada
        books[2].author = ada
        try context.save()
        let reader = try open(store, ManagedObjectModel(entities: [MigBookV2.self, MigAuthorV2.self]))
        defer { reader.persistentStoreCoordinator.close() }
        let author = try #require(try reader.viewContext.fetch(FetchRequest<MigAuthorV2>()).first)
        #expect(Set(author.books.map(\.title)) == ["one", "three"], "the added relationship is stored")
    }

    private static let writerV1 = """
        <entity name="Writer" representedClassName="Writer" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="born" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="code" optional="YES" attributeType="String"/>
        </entity>
        """

    /// Ada (born 1815, code "12") and Grace (born unknown, code "abc").
    private func writeWriters(_ store: TestStore) throws -> ManagedObjectModel {
        let v1 = try fileModel(Self.writerV1)
        let container = try open(store, v1)
        defer { container.persistentStoreCoordinator.close() }
        for (name, born, code) in [("Ada", Int64(1815) as Int64?, "12"), ("Grace", nil, "abc")] {
            let writer = try container.viewContext.insertNewObject(forEntityName: "Writer")
            try writer.setValue(name, forKey: "name")
            try writer.setValue(born, forKey: "born")
            try writer.setValue(code, forKey: "code")
        }
        try container.viewContext.save()
        return v1
    }

    private func assertStillAtVersion1(_ store: TestStore, _ v1: ManagedObjectModel) throws {
        let container = try open(store, v1, options: [.readOnly])
        defer { container.persistentStoreCoordinator.close() }
        var request = FetchRequest<ManagedObject>(entityName: "Writer")
        request.sortDescriptors = [SortKey("name")]
        let writers = try container.viewContext.fetch(request)
        #expect(writers.map { $0.value(forKey: "code") as? String } == ["12", "abc"], "the store is wholly at version 1")
    }

    @Test("An entity and an attribute renamed by renaming identifier keep their rows", arguments: StoreKind.allCases)
    func renamedEntityAndAttribute(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        _ = try writeWriters(store)
        let v2 = try fileModel("""
            <entity name="Author" representedClassName="Author" elementID="Writer" syncable="YES">
                <attribute name="fullName" optional="YES" attributeType="String" elementID="name"/>
                <attribute name="born" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <attribute name="code" optional="YES" attributeType="String"/>
            </entity>
            """)
        let container = try open(store, v2)
        defer { container.persistentStoreCoordinator.close() }
        var request = FetchRequest<ManagedObject>(entityName: "Author")
        request.sortDescriptors = [SortKey("fullName")]
        let authors = try container.viewContext.fetch(request)
        #expect(authors.map { $0.value(forKey: "fullName") as? String } == ["Ada", "Grace"])
        #expect(authors.map { "\($0.value(forKey: "born") ?? "nil")" } == ["1815", "nil"], "Integer 64 narrowed to Integer 32")
    }

    @Test("A required attribute without a default stops at the missing value with the same error", arguments: StoreKind.allCases)
    func requiredWithoutDefaultIsRefused(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let v1 = try writeWriters(store)
        let required = try fileModel(Self.writerV1.replacingOccurrences(of: #"name="born" optional="YES""#, with: #"name="born""#))
        #expect {
            try open(store, required)
        } throws: { error in
            let migration = error as? MigrationError
            return migration?.code == .missingValue && migration?.entity == "Writer" && migration?.property == "born"
                && migration?.message.contains("has no value for born, which the new model requires") == true
        }
        try assertStillAtVersion1(store, v1)
    }

    @Test("A value that does not convert stops the migration with the same error", arguments: StoreKind.allCases)
    func unconvertibleValueIsRefused(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let v1 = try writeWriters(store)
        let number = try fileModel(Self.writerV1.replacingOccurrences(of: #"name="code" optional="YES" attributeType="String""#,
                                                                      with: #"name="code" optional="YES" attributeType="Integer 64" usesScalarValueType="YES""#))
        #expect {
            try open(store, number)
        } throws: { error in
            let migration = error as? MigrationError
            return migration?.code == .unconvertibleValue && migration?.property == "code"
                && migration?.message.contains(#"holds "abc", which does not convert to Integer 64"#) == true
        }
        try assertStillAtVersion1(store, v1)
    }

    /// Writers named by `codes` (sorted by name), at version 1, in `store`.
    private func writeCodes(_ store: TestStore, _ codes: [(name: String, code: String)]) throws {
        let container = try open(store, try fileModel(Self.writerV1))
        defer { container.persistentStoreCoordinator.close() }
        let existing = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Writer"))
        for object in existing { container.viewContext.delete(object) }
        for (name, code) in codes {
            let writer = try container.viewContext.insertNewObject(forEntityName: "Writer")
            try writer.setValue(name, forKey: "name")
            try writer.setValue(code, forKey: "code")
        }
        try container.viewContext.save()
    }

    private static let decimalCodeModel = writerV1.replacingOccurrences(of: #"name="code" optional="YES" attributeType="String""#,
                                                                       with: #"name="code" optional="YES" attributeType="Decimal""#)

    // Before: on PostgreSQL the text went through a double, so the 38-digit code read back
    // as 1234567890123456800000000000 (and a code past a Decimal's 38 digits or 1e-128 was
    // kept in `numeric` but read back changed).
    @Test("Text migrated to Decimal keeps every digit the store keeps; what a Decimal cannot hold is refused", arguments: StoreKind.allCases)
    func textToDecimalIsExact(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let long = kind == .postgres ? "1234567890123456789012345678.9012345678" : "12345.6789012345"
        let refused = ["NaN"] + (kind == .postgres ? ["123456789012345678901234567890123456789", "1e-129", "-1e170"] : [])
        for code in refused {
            try writeCodes(store, [("Ada", code)])
            #expect {
                try open(store, try fileModel(Self.decimalCodeModel))
            } throws: { error in
                let migration = error as? MigrationError
                return migration?.code == .unconvertibleValue && migration?.property == "code"
                    && migration?.message.contains("which does not convert to Decimal") == true
            }
        }
        try writeCodes(store, [("Ada", long), ("Grace", " -0.000000000000000000123456789012345 "), ("Hedy", "")])
        let container = try open(store, try fileModel(Self.decimalCodeModel))
        defer { container.persistentStoreCoordinator.close() }
        var request = FetchRequest<ManagedObject>(entityName: "Writer")
        request.sortDescriptors = [SortKey("name")]
        let codes = try container.viewContext.fetch(request).map { $0.value(forKey: "code") as? Decimal }
        #expect(codes == [Decimal(string: long)!, Decimal(string: "-0.000000000000000000123456789012345")!, nil], "\(codes)")
    }

    @Test("A model bundle's version chain migrates through every version in one move", arguments: StoreKind.allCases)
    func bundleChainMigrates(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let versions = [
            """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="body" optional="YES" attributeType="String"/>
                <attribute name="gone" optional="YES" attributeType="String"/>
            </entity>
            """,
            """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="text" optional="YES" attributeType="String" elementID="body"/>
                <attribute name="stars" attributeType="Integer 64" defaultValueString="3" usesScalarValueType="YES"/>
            </entity>
            """,
            """
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="text" optional="YES" attributeType="String"/>
                <attribute name="stars" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
                <attribute name="pinned" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            </entity>
            """,
        ]
        let v1 = try fileModel(versions[0])
        do {
            let container = try open(store, v1)
            defer { container.persistentStoreCoordinator.close() }
            for body in ["a", "b"] {
                let note = try container.viewContext.insertNewObject(forEntityName: "Note")
                try note.setValue(body, forKey: "body")
                try note.setValue("dropped, as version 2 declares", forKey: "gone")
            }
            try container.viewContext.save()
        }
        let newest = try bundleModel(versions)
        let container = try open(store, newest)
        defer { container.persistentStoreCoordinator.close() }
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        request.sortDescriptors = [SortKey("text")]
        let notes = try container.viewContext.fetch(request)
        #expect(notes.map { $0.value(forKey: "text") as? String } == ["a", "b"], "body renamed text in version 2")
        #expect(notes.map { "\($0.value(forKey: "stars") ?? "nil")" } == ["3", "3"], "added in version 2, narrowed in 3")
        #expect(notes.map { "\($0.value(forKey: "pinned") ?? "nil")" } == ["true", "true"], "added in version 3 with its default")
    }

    @Test("The forecast is SQLite-only: a PostgreSQL store's URL gets a typed error saying so")
    func forecastIsSQLiteOnly() throws {
        let store = try StoreKind.postgres.newStore()
        try writeBooks(store)
        let url = try #require(URL(string: store.processArgument))
        #expect {
            try PersistentStoreCoordinator.migrationForecast(model: ManagedObjectModel(entities: [MigBookAdded.self, MigAuthorV1.self]), storeURL: url)
        } throws: { error in
            (error as? StoreError)?.code == .cannotOpen && "\(error)".contains("forecast is SQLite-only")
        }
    }

    // MARK: Staged

    private func writeContacts(_ store: TestStore) throws {
        let container = try open(store, ManagedObjectModel(entities: [MigContactV1.self]))
        defer { container.persistentStoreCoordinator.close() }
        for (index, name) in ["Ada Lovelace", "Grace Brewster Hopper", "  Plato "].enumerated() {
            let contact = MigContactV1(context: container.viewContext)
            contact.fullName = name
            contact.phone = "555-\(index)"
        }
        try container.viewContext.save()
    }

    private struct Refused: Error {}

    /// Version 2 to 3: `willMigrate` trims the names at version 2, `didMigrate` splits them.
    static func splittingStage(from v2: ManagedObjectModel, to v3: ManagedObjectModel, ran: Locked<[String]>, failing: Bool = false) -> MigrationStage {
        .custom(from: v2, to: v3, label: "split fullName", willMigrate: { context in
            ran.withLock { $0.append("willMigrate") }
            for contact in try context.fetch(FetchRequest<MigContactV2>()) {
                contact.fullName = contact.fullName.trimmingCharacters(in: .whitespaces)
            }
        }, didMigrate: { context, old in
            ran.withLock { $0.append("didMigrate") }
            for contact in try old.fetch(FetchRequest<MigContactV2>()) {
                guard let id = context.persistentStoreCoordinator.managedObjectID(forURIRepresentation: contact.objectID.uriRepresentation),
                      let new = try context.existingObject(with: id) as? MigContactV3 else { throw Refused() }
                let parts = contact.fullName.split(separator: " ", maxSplits: 1)
                new.firstName = parts.first.map(String.init) ?? ""
                new.lastName = parts.count > 1 ? String(parts[1]) : ""
            }
            if failing { throw Refused() }
        })
    }

    @Test("A three-version chain with a custom stage splitting fullName migrates", arguments: StoreKind.allCases)
    func stagedChainSplitsFullName(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try writeContacts(store)
        let (v1, v2, v3) = (try ManagedObjectModel(entities: [MigContactV1.self]), try ManagedObjectModel(entities: [MigContactV2.self]),
                            try ManagedObjectModel(entities: [MigContactV3.self]))
        let failed = Locked<[String]>([])
        #expect(throws: Refused.self, "a handler's own error comes out") {
            try open(store, v3, stages: StagedMigrationManager([.lightweight(from: v1, to: v2), Self.splittingStage(from: v2, to: v3, ran: failed, failing: true)]))
        }
        let middle = try open(store, v2, options: [.readOnly])
        #expect(try middle.viewContext.fetch(FetchRequest<MigContactV2>()).map(\.fullName).sorted() == ["  Plato ", "Ada Lovelace", "Grace Brewster Hopper"],
                "the failed stage left the store wholly at version 2, willMigrate's trimming rolled back")
        middle.persistentStoreCoordinator.close()

        let ran = Locked<[String]>([])
        let container = try open(store, v3, stages: StagedMigrationManager([.lightweight(from: v1, to: v2), Self.splittingStage(from: v2, to: v3, ran: ran)]))
        defer { container.persistentStoreCoordinator.close() }
        let contacts = try container.viewContext.fetch(FetchRequest<MigContactV3>(sortDescriptors: [SortKey("telephone")]))
        #expect(contacts.map(\.firstName) == ["Ada", "Grace", "Plato"])
        #expect(contacts.map(\.lastName) == ["Lovelace", "Brewster Hopper", ""])
        #expect(contacts.map(\.telephone) == ["555-0", "555-1", "555-2"], "the lightweight stage's rename carried the values")
        #expect(contacts.map(\.starred) == [false, false, false])
        #expect(ran.value == ["willMigrate", "didMigrate"])
    }
}
