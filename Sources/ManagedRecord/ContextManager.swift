import Foundation
import ObjectGraph
import Synchronization

/// The hidden per-thread context manager of one model: the main queue's context is the main
/// context (the main thread, `@MainActor` code, and top-level code before and after any
/// `await`); every other thread gets its own context on first use, released when the thread
/// ends; async code gets a context bound to its task through ``perform(_:)``, and each child
/// task inside it a context of its own.
///
/// A commit on any thread reaches every other live context of the model, merged on the
/// owning thread at its next access — no run loop needed, no context touched from a foreign
/// thread. Thread-safe.
public final class ContextManager: @unchecked Sendable {  // mutable state behind `lock`
    /// The model's name.
    public let name: String
    public let model: ManagedObjectModel
    /// How commits resolve rows changed since they were read (the default is object-trump,
    /// as RHManagedObject's). A change reaches every context of the model: the main context
    /// and each thread's at their next class-level use (on their own thread), and every
    /// ``ManagedObjectContext/save()`` through `commit()`.
    public var mergePolicy: MergePolicy {
        get { lock.withLock { policy } }
        set { lock.withLock { policy = newValue; settingsVersion += 1 } }
    }

    /// Whether contexts record changes for `undo()` (on by default; the record is cleared at
    /// each commit, so it stays small). A change reaches existing contexts at their next
    /// class-level use, as ``mergePolicy`` does; turning it off drops what they recorded.
    public var undoEnabled: Bool {
        get { lock.withLock { undo } }
        set { lock.withLock { undo = newValue; settingsVersion += 1 } }
    }

    /// Called on the committing thread before each class-level `commit()` that has something
    /// to write, with the number of objects it will write (inserted, changed and deleted):
    /// RHManagedObject's will-save notification, whose count lets an app prepare for a mass
    /// update. It runs before the save, so it may still change objects of that context; keep
    /// it short, and touch no other thread's context.
    ///
    /// ```swift
    /// Employee.contextManager.willCommit = { pending in
    ///     if pending > 1_000 { print("mass update: \(pending) objects") }
    /// }
    /// ```
    public var willCommit: (@Sendable (_ pendingChangesCount: Int) -> Void)? {
        get { lock.withLock { willCommitHook } }
        set { lock.withLock { willCommitHook = newValue } }
    }

    /// How the contexts of threads and tasks stand to the main context.
    public enum StackShape: Sendable {
        /// Every context reads and commits to the store itself, and merges the others'
        /// commits (the default).
        case siblings
        /// MagicalRecord's stack: each thread's (and task's) context is a child of the main
        /// context. It reads through the main context (seeing its unsaved changes), and a
        /// class-level `commit()` saves it into the main context, which then saves to the
        /// store (docs/threading.md, "Child contexts").
        case childrenOfMainContext
    }

    /// How contexts made from now on stand to the main context: ``StackShape/siblings`` (the
    /// default) or MagicalRecord's ``StackShape/childrenOfMainContext``. Contexts that exist
    /// keep their shape; set it right after `setUp`.
    ///
    /// With children of the main context, a thread's commit (and each of its reads) uses the
    /// main context from that thread under the main context's perform lock, as
    /// ``ManagedObjectContext/performAndWait(_:)`` does: main-queue code must not use the main
    /// context while other threads commit (main-actor code that awaits them is fine).
    ///
    /// ```swift
    /// Employee.contextManager.stackShape = .childrenOfMainContext
    /// ```
    public var stackShape: StackShape {
        get { lock.withLock { shape } }
        set { lock.withLock { shape = newValue } }
    }

    private var shape = StackShape.siblings
    private var undo = true
    private var willCommitHook: (@Sendable (Int) -> Void)?
    /// Bumped by each settings change; contexts remember the version they last applied.
    private var settingsVersion = 0
    private var mainSettingsVersion = 0
    private let location: PersistentContainer.Location
    private let seedStore: URL?
    private let options: PersistentContainer.Options
    private let stagedMigration: StagedMigrationManager?
    private let lock = NSLock()
    private var policy: MergePolicy
    private var container: PersistentContainer
    private var generation = 0
    private var mainContext: ManagedObjectContext?
    private let threadContexts = ThreadContextSlot()
    /// Whether the store on disk (a seed store once copied in) was of another model version
    /// when this manager last opened it: at setUp, or after `deleteStore`.
    private var migratedAtOpen: Bool

    /// The `perform` blocks running in this task and its ancestors, by manager.
    @TaskLocal static var taskContexts: [ObjectIdentifier: TaskContexts] = [:]

    init(name: String, model: ManagedObjectModel, location: PersistentContainer.Location, seedStore: URL?, mergePolicy: MergePolicy,
         options: PersistentContainer.Options = [], stagedMigration: StagedMigrationManager? = nil) throws {
        self.name = name
        self.model = model
        self.location = location
        self.seedStore = seedStore
        self.options = options
        self.stagedMigration = stagedMigration
        self.policy = mergePolicy
        (container, migratedAtOpen) = try Self.openContainer(name: name, model: model, location: location, seedStore: seedStore, options: options,
                                                             stagedMigration: stagedMigration)
    }

    /// Opens the container (copying the seed store in first when there is no store) and says
    /// whether the store it found needed migrating to `model`.
    private static func openContainer(name: String, model: ManagedObjectModel, location: PersistentContainer.Location, seedStore: URL?,
                                      options: PersistentContainer.Options,
                                      stagedMigration: StagedMigrationManager?) throws -> (PersistentContainer, migrated: Bool) {
        if let seedStore, case .server(let server) = location {
            throw StoreError(.cannotOpen, url: URL(string: server.redactedURL), "a seed store (\(seedStore.lastPathComponent)) is a SQLite file copied into place, which a database server store cannot take; set up without seedStore and import the seed data into the server store instead")
        }
        let url = storeURL(name: name, location: location)
        if let seedStore, let url, !FileManager.default.fileExists(atPath: url.path) {
            // Copied in as a backup is restored: a checked, consistent copy, complete or absent,
            // owner-only (its folder too) unless the options keep the process umask.
            try PersistentContainer.restore(storeAt: url, from: seedStore, options: options)
        }
        // A file is asked before it opens; a server store reports its migration while it opens.
        let migratedFile = try url.map { try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: $0) }
        let serverMigrated = MigrationSeen()
        let noteMigration: MigrationProgressHandler = { _ in serverMigrated.note() }
        let container = try PersistentContainer(name: name, model: model, location: location, options: options,
                                                stagedMigration: stagedMigration, migrationProgress: url == nil ? noteMigration : nil)
        let migrated = migratedFile ?? serverMigrated.happened
        // The container's own view context is never used by the manager: it must not collect
        // every commit's changes in an inbox nobody drains.
        container.viewContext.automaticallyMergesChanges = false
        return (container, migrated)
    }

    private static func storeURL(name: String, location: PersistentContainer.Location) -> URL? {
        switch location {
        case .defaultLocation: return PersistentContainer.defaultStoreURL(name: name)
        case .file(let url): return url
        case .inMemory, .server: return nil
        }
    }

    /// The store file, the server's URL (without a password) for a server store, or nil in
    /// memory.
    public var storeURL: URL? { lock.withLock { container.storeURL } }

    /// The coordinator of the model's store.
    public var persistentStoreCoordinator: PersistentStoreCoordinator { lock.withLock { container.persistentStoreCoordinator } }

    // MARK: Contexts

    /// The calling code's context: inside ``perform(_:)`` the context bound to the running
    /// task (a child task's own context in a child task); on the main queue (the main
    /// thread, main-actor code, top-level code) the main context; on any other thread a
    /// context of that thread, created on first use.
    public var contextForCurrentThread: ManagedObjectContext {
        if let contexts = Self.taskContexts[ObjectIdentifier(self)],
           let bound = contexts.contextForCurrentTask(make: { lock.withLock { makeContext(.privateQueue, name: "\(name).childTask") } }) {
            return bound
        }
        if MainQueue.isCurrent { return lock.withLock { currentMainContext() } }
        if let entry = threadContexts.current {
            let (current, settings) = lock.withLock { (generation, settingsVersion) }
            if entry.generation == current {
                if entry.settingsVersion != settings { entry.settingsVersion = applySettings(to: entry.context) }
                return entry.context
            }
        }
        let context = lock.withLock { () -> (ManagedObjectContext, Int, Int) in
            (makeContext(.confined, name: "\(name).thread"), generation, settingsVersion)
        }
        threadContexts.set(.init(context: context.0, generation: context.1, settingsVersion: context.2))
        return context.0
    }

    /// The main queue's context (created at its first use on the main queue).
    public var mainThreadContext: ManagedObjectContext? { lock.withLock { mainContext } }

    /// Under the lock, on the main queue.
    private func currentMainContext() -> ManagedObjectContext {
        if let mainContext {
            if mainSettingsVersion != settingsVersion {
                configure(mainContext)
                mainSettingsVersion = settingsVersion
            }
            return mainContext
        }
        return mainContextForChildren()
    }

    /// Gives `context` the current settings, on its own thread; returns their version.
    private func applySettings(to context: ManagedObjectContext) -> Int {
        let (currentPolicy, recordsUndo, version) = lock.withLock { (self.policy, self.undo, self.settingsVersion) }
        context.mergePolicy = currentPolicy
        if recordsUndo != (context.undoStack != nil) { context.undoStack = recordsUndo ? UndoStack() : nil }
        return version
    }

    /// Gives `context` the current settings (under the lock).
    private func configure(_ context: ManagedObjectContext) {
        context.mergePolicy = policy
        if undo != (context.undoStack != nil) { context.undoStack = undo ? UndoStack() : nil }
    }

    /// Before a class-level commit of `context`, on its thread: the current merge policy, and
    /// the will-commit hook with the number of objects the commit will write.
    func prepareCommit(of context: ManagedObjectContext) {
        let (currentPolicy, hook) = lock.withLock { (self.policy, self.willCommitHook) }
        context.mergePolicy = currentPolicy
        guard let hook, context.hasChanges else { return }
        hook(context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count)
    }

    /// A class-level commit of `context`, on its thread: the will-commit hook, the save, and,
    /// for a child of the main context, the main context's save to the store (tried again by
    /// the next commit when it failed: the changes wait in the main context).
    func commit(_ context: ManagedObjectContext) throws {
        prepareCommit(of: context)
        try context.save()
        guard let parent = context.parent else { return }
        try parent.performAndWait {
            prepareCommit(of: parent)
            try parent.save()
        }
    }

    /// A new context of the model: on the store, merging every other context's commits; or,
    /// shaped as children of the main context, a child of it (under the lock).
    private func makeContext(_ type: ManagedObjectContext.ConcurrencyType, name: String) -> ManagedObjectContext {
        if shape == .childrenOfMainContext && type != .mainQueue {
            let context = mainContextForChildren().newChildContext(concurrencyType: type, name: name)
            configure(context)
            return context
        }
        let context = ManagedObjectContext(coordinator: container.persistentStoreCoordinator, concurrencyType: type, name: name)
        context.automaticallyMergesChanges = true
        configure(context)
        return context
    }

    /// The main context, made now (from any thread) when no main-queue code used it yet, as
    /// the parent of other contexts (under the lock).
    private func mainContextForChildren() -> ManagedObjectContext {
        if let mainContext { return mainContext }
        let context = makeContext(.mainQueue, name: "\(name).main")
        mainContext = context
        mainSettingsVersion = settingsVersion
        return context
    }

    /// A private-queue context on the model's store, for work off the calling thread.
    func newBackgroundContext() -> ManagedObjectContext {
        lock.withLock { makeContext(.privateQueue, name: "\(name).background") }
    }

    /// Runs `block` with a fresh context bound to the running task: class-level helpers inside
    /// it use that context on whichever thread the task resumes after an `await`, and child
    /// tasks started in it (`async let`, task groups, `Task { }`) get contexts of their own,
    /// whose commits merge like any other. The contexts end with the block: unsaved changes
    /// are discarded (call `commit()` inside it), and objects it returns belong to no context
    /// afterwards — changing one stops with a message; return object IDs instead.
    public func perform<T>(_ block: sending () async throws -> T) async rethrows -> sending T {
        guard let task = TaskIdentity.current else { preconditionFailure("ManagedRecord: perform runs only inside a task") }
        let contexts = TaskContexts(owner: task, context: lock.withLock { makeContext(.privateQueue, name: "\(name).task") })
        defer { contexts.close() }
        var bindings = Self.taskContexts
        bindings[ObjectIdentifier(self)] = contexts
        // `block` was sent to us and runs once, in this task: TaskLocal.withValue's
        // operation is not `sending`, so the region is carried over explicitly.
        nonisolated(unsafe) let body = block
        let result = try await Self.$taskContexts.withValue(bindings) { try await body() }
        nonisolated(unsafe) let sent = result
        return sent
    }

    // MARK: Store

    /// Whether the store needed migrating to this model: true when `setUp` found a store
    /// (or copied in a seed store) written with another model version, and migrated it, or
    /// when the file on disk is of another version now; false for the fresh store that
    /// ``deleteStore()`` leaves (unless the seed it copies in again is of another version).
    /// To ask before setting up, use ``ManagedRecord/doesRequireMigration(entities:storeURL:)``.
    public func doesRequireMigration() throws -> Bool {
        if lock.withLock({ migratedAtOpen }) { return true }
        // A store file. A server store migrated when it opened (above) or fits the model (a
        // model that does not fit it is migrated or refused when it opens), and its URL is no
        // file to read.
        guard let url = Self.storeURL(name: name, location: location) else { return false }
        return try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: url)
    }

    /// Closes the model's store for good: its connections close once the saves under way
    /// finish, and every context this manager made (on any thread, or held by the caller)
    /// gets ``StoreError`` `.closed` at its next store access. `ManagedRecord.tearDown` and
    /// setting the model up again call it, so no connection outlives its stack.
    func close() {
        lock.withLock {
            mainContext = nil
            generation += 1
            container.persistentStoreCoordinator.close()
        }
        threadContexts.close()
    }

    /// Deletes the store (the file with its `-wal` and `-shm` companions, or a server store's
    /// schema with every row of every process), resets every context
    /// (objects you hold belong to none afterwards) and opens a new, empty store: the next
    /// use of any class works on it.
    ///
    /// - Throws: ``StoreError`` `.readOnly` when the model was set up with `options: [.readOnly]`
    ///   (nothing is deleted).
    public func deleteStore() throws {
        if options.contains(.readOnly) {
            throw StoreError(.readOnly, url: storeURL, "the store was set up read-only (options: [.readOnly]), so it is not deleted; set it up without .readOnly to delete it")
        }
        try lock.withLock {
            mainContext = nil
            generation += 1
            // Every connection closes before the store goes (its files, or a server store's
            // schema): contexts still alive on other threads get a `.closed` error instead
            // of reading a recycled file.
            try container.persistentStoreCoordinator.destroyStore()
            (container, migratedAtOpen) = try Self.openContainer(name: name, model: model, location: location, seedStore: seedStore, options: options,
                                                                 stagedMigration: stagedMigration)
        }
    }
}

/// Whether a server store reported migration progress while it opened (the progress handler
/// runs on the opening thread; the lock makes the flag safe to read from any).
private final class MigrationSeen: Sendable {
    private let seen = Mutex(false)

    func note() { seen.withLock { $0 = true } }

    var happened: Bool { seen.withLock { $0 } }
}
