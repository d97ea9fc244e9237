import Foundation
import ObjectGraph

/// Setting up from an Xcode model file, as RHManagedObject does (`+modelName` names the
/// model; the classes are generated from it).
extension ManagedRecord {
    /// Sets up the stack of the model in an Xcode model file: an `.xcdatamodeld` bundle (its
    /// current version; a store of an earlier version migrates through the later ones), an
    /// `.xcdatamodel` folder or a bare `contents` file. Compiled models (`.mom`, `.momd`)
    /// cannot be read: use the `.xcdatamodeld` from the app's sources.
    ///
    /// ```swift
    /// final class EmployeeMO: ManagedObject {          // the class of entity Employee
    ///     @Attribute var firstName: String?
    ///     @Attribute var age: Int = 0
    /// }
    /// try ManagedRecord.setUp(modelAt: URL(fileURLWithPath: "Company.xcdatamodeld"), classes: [EmployeeMO.self])
    /// let adults = try EmployeeMO.fetch(where: "age >= %@", 18)
    /// let shifts = try ManagedRecord.entity("Shift").fetchAll()   // an entity without a class
    /// ```
    ///
    /// Each class in `classes` is the class of the entity its `entityName` names (its Swift
    /// name unless overridden), else of the entity whose `representedClassName` is its
    /// Swift name, module ignored (`EmployeeMO`, `.EmployeeMO` and `MyApp.EmployeeMO` all
    /// name `EmployeeMO`). Its `@Attribute`s and `@Relationship`s must be properties of that
    /// entity; it may leave others out (they are read by key). A class-less sub-entity shares
    /// its parent entity's class; other entities without a class are reached by name with
    /// ``entity(_:inModel:)``.
    ///
    /// - Parameters:
    ///   - name: the model's name, which names the default store file and is what
    ///     `modelName` overrides refer to; by default the file's name without its extension
    ///     (``modelName(forModelAt:)``).
    ///   - storeURL, seedStore, mergePolicy, options, stagedMigration: as for
    ///     ``setUp(model:entities:storeURL:seedStore:mergePolicy:options:stagedMigration:)``.
    /// - Throws: ``ModelError`` `.invalidModelFile` naming the file and element for a file
    ///   that cannot be read, `.classMismatch` for a class that matches no entity (naming the
    ///   class and every entity with its class name) or does not fit its entity; otherwise as
    ///   ``setUp(model:entities:storeURL:seedStore:mergePolicy:options:stagedMigration:)``.
    @discardableResult
    public static func setUp(modelAt url: URL, classes: [ManagedObject.Type] = [], name: String? = nil, storeURL: URL? = nil,
                             seedStore: URL? = nil, mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        try setUp(modelAt: url, classes: classes, name: name, store: storeURL.map { .file($0) } ?? .defaultLocation, seedStore: seedStore,
                  mergePolicy: mergePolicy, options: options, stagedMigration: stagedMigration)
    }

    /// Sets up the model of an Xcode model file on `store`: a file, memory (`.inMemory`), or
    /// a database server (`.postgres(url)` with ObjectGraphPostgres); see
    /// ``setUp(modelAt:classes:name:storeURL:seedStore:mergePolicy:options:stagedMigration:)``.
    @discardableResult
    public static func setUp(modelAt url: URL, classes: [ManagedObject.Type] = [], name: String? = nil, store: PersistentContainer.Location,
                             seedStore: URL? = nil, mergePolicy: MergePolicy = .mergeByPropertyObjectTrump,
                             options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws -> ContextManager {
        try setUp(name: name ?? modelName(forModelAt: url), model: readModel(at: url, classes: classes), store: store, seedStore: seedStore,
                  mergePolicy: mergePolicy, options: options, stagedMigration: stagedMigration)
    }

    /// Whether opening the store at `storeURL` with the model file at `url` would migrate it
    /// (false when there is no store yet). Touches nothing.
    public static func doesRequireMigration(modelAt url: URL, storeURL: URL) throws -> Bool {
        try PersistentStoreCoordinator.requiresMigration(model: readModel(at: url, classes: []), storeURL: storeURL)
    }

    /// The model name a model file gets by default: its name without the extension
    /// (`Company` for `Company.xcdatamodeld` or `Company.xcdatamodel`), and for a `contents`
    /// file the name of its folder.
    public static func modelName(forModelAt url: URL) -> String {
        let named = url.lastPathComponent == "contents" ? url.deletingLastPathComponent() : url
        return named.deletingPathExtension().lastPathComponent
    }

    /// The model at `url`, with a message for compiled models, which Xcode's build makes
    /// (`.momd` folders hold `.mom` files) and which cannot be read.
    private static func readModel(at url: URL, classes: [ManagedObject.Type]) throws -> ManagedObjectModel {
        if url.pathExtension == "momd" {
            throw ModelError(.invalidModelFile, "this is a compiled model (.momd), which cannot be read; use the .xcdatamodeld folder from the app's sources", file: url)
        }
        return try ManagedObjectModel(contentsOf: url, classes: classes)
    }
}
