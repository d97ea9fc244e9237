import Foundation
import ObjectGraph

/// A difference between the library and the reference model: the step, and what differed.
struct GraphMismatch: Error, CustomStringConvertible {
    let step: Int
    let message: String
    var description: String { "after step \(step + 1): \(message)" }
}

/// Runs generated steps against real containers on one store and against the reference
/// model side by side, and compares them after every step.
///
/// Three contexts act: A (the view context of the first container) and B (a background
/// context of it) merge each other's saves at their next access; C (the view context of a
/// second container) merges nothing by itself, and takes A's and B's saves only with
/// `mergeChanges(fromSaveOf:)` (the `mergeSecondContainer` step). C's saves reach A and B
/// through `mergeChanges(fromSaveOf:)` on SQLite, and through the server on PostgreSQL (the
/// harness waits for them to arrive). Every context uses `.mergeByPropertyObjectTrump` and
/// an undo stack.
final class GraphHarness {
    let store: TestStore
    private var first: PersistentContainer
    private var second: PersistentContainer
    private var contexts: [ManagedObjectContext] = []
    /// The key → object map of each context, as last read.
    private var shown: [[String: ManagedObject]] = [[:], [:], [:]]
    /// Remote commits the first container has heard (PostgreSQL pushes C's saves).
    private let remoteCommits = Locked(0)
    private var remoteObservation: ChangeObservation?

    private var reference = GraphStore()
    private var models = [GraphContextModel(), GraphContextModel(), GraphContextModel()]
    /// A's and B's saves C has not merged: the library's change sets and the reference's.
    private var missedByC: [(changes: ContextChanges, save: GraphSave)] = []
    /// Contexts another context saved over while they had unsaved changes: their view of
    /// those objects is older than the store's (see `isUpToDate`).
    private var overtaken: Set<Int> = []
    private var counter = 0
    private var nextKey = 0

    /// What happened: steps run, saves, and steps skipped because their preconditions failed.
    private(set) var executed = 0
    private(set) var saves = 0
    /// Steps that changed something, by kind (an edit whose object did not exist, or that
    /// set what was already there, changes nothing).
    private(set) var effective: [String: Int] = [:]

    init(_ kind: StoreKind) throws {
        store = try kind.newStore()
        first = try store.container()
        second = try store.container()
        openContexts()
    }

    deinit {
        close()
    }

    func close() {
        remoteObservation?.cancel()
        first.persistentStoreCoordinator.close()
        second.persistentStoreCoordinator.close()
    }

    private func openContexts() {
        let a = first.viewContext
        let b = first.newBackgroundContext()
        let c = second.viewContext
        c.automaticallyMergesChanges = false
        for context in [a, b, c] {
            context.performAndWait {
                context.mergePolicy = .mergeByPropertyObjectTrump
                context.undoStack = UndoStack()
            }
        }
        contexts = [a, b, c]
        let remote = remoteCommits
        remoteObservation = first.addChangeObserver { change in
            if change.contextName == "(another process)" { remote.withLock { $0 += 1 } }
        }
    }

    // MARK: Running

    /// The graph every sequence starts from, saved by A: two departments, four employees
    /// (three in departments), two projects with members, three tags.
    static let prologue: [GraphStep] = [
        .insert(actor: 0, .department), .insert(actor: 0, .department),
        .insert(actor: 0, .employee), .insert(actor: 0, .employee), .insert(actor: 0, .employee), .insert(actor: 0, .employee),
        .insert(actor: 0, .project), .insert(actor: 0, .project),
        .insert(actor: 0, .tag), .insert(actor: 0, .tag), .insert(actor: 0, .tag),
        .setDepartment(actor: 0, employee: 0, department: 0), .setDepartment(actor: 0, employee: 1, department: 0),
        .setDepartment(actor: 0, employee: 2, department: 1),
        .setMember(actor: 0, project: 0, employee: 0, member: true, fromProject: true),
        .setMember(actor: 0, project: 0, employee: 1, member: true, fromProject: true),
        .setMember(actor: 0, project: 1, employee: 2, member: true, fromProject: false),
        .setProject(actor: 0, tag: 0, project: 0), .setProject(actor: 0, tag: 1, project: 0), .setProject(actor: 0, tag: 2, project: 1),
        .save(actor: 0),
    ]

    /// Runs `steps` after the prologue; throws the first mismatch (numbered in `steps`).
    func run(_ steps: [GraphStep]) throws {
        do {
            for step in Self.prologue { try perform(step) }
            try compareContexts()
        } catch {
            throw GraphMismatch(step: -1, message: "the prologue: \(error)")
        }
        effective = [:]
        saves = 0
        for (index, step) in steps.enumerated() {
            do {
                try perform(step)
                executed += 1
                try compareContexts()
            } catch let mismatch as GraphMismatch {
                throw GraphMismatch(step: index, message: mismatch.message)
            } catch {
                throw GraphMismatch(step: index, message: "\(step) threw \(error)")
            }
        }
    }

    private func fail(_ message: String) -> GraphMismatch { GraphMismatch(step: -1, message: message) }

    private func newKey(_ entity: GraphEntity) -> String {
        nextKey += 1
        return entity.prefix + String(nextKey)
    }

    private func freshNumber() -> Int {
        counter += 1
        return 1000 + counter
    }

    /// The key of the `pick`-th object of `entity` the context shows (nil when it shows none).
    private func key(_ actor: Int, _ entity: GraphEntity, _ pick: Int) -> String? {
        let keys = models[actor].keys(entity)
        return keys.isEmpty ? nil : keys[pick % keys.count]
    }

    private func object<T: ManagedObject>(_ actor: Int, _ key: String, as type: T.Type) throws -> T {
        guard let object = shown[actor][key] as? T else { throw fail("context \(GraphStep.contextNames[actor]) shows no \(key)") }
        return object
    }

    /// Whether `actor` sees the store as it is, apart from its own changes: it merged every
    /// save, and none arrived over objects it had changed (they would keep older values).
    private func isUpToDate(_ actor: Int) -> Bool {
        !overtaken.contains(actor) && (actor != 2 || missedByC.isEmpty)
    }

    private func perform(_ step: GraphStep) throws {
        if let actor = step.actor, step.isEdit {
            // While another context holds an unsaved delete, this one does not edit: the
            // delete's merge would meet this context's changes (see the generator's notes).
            if (0..<3).contains(where: { $0 != actor && models[$0].objects.values.contains { $0.isDeleted } }) { return }
            let before = models[actor].objects
            try edit(step, actor)
            let groups = models[actor].undoGroups.count
            models[actor].recordUndoGroup(before: before)
            if models[actor].undoGroups.count > groups { effective[step.kind, default: 0] += 1 }
            return
        }
        effective[step.kind, default: 0] += 1
        switch step {
        case .save(let actor):
            try save(actor)
        case .rollback(let actor):
            contexts[actor].performAndWait { contexts[actor].rollback() }
            models[actor].rollback()
            overtaken.remove(actor)
        case .undo(let actor):
            contexts[actor].performAndWait { contexts[actor].undo() }
            models[actor].undo()
        case .refresh(let actor, let entity, let pick, let merge):
            // Mostly an object with unsaved changes, where a refresh has something to keep or drop.
            let changed = models[actor].objects.filter { $0.value.isDirty && !$0.value.isInserted && !$0.value.isDeleted }.keys
                .sorted { (GraphEntity.of($0).rawValue, GraphStore.number($0)) < (GraphEntity.of($1).rawValue, GraphStore.number($1)) }
            let chosen = !changed.isEmpty && pick % 4 != 0 ? changed[pick % changed.count] : key(actor, entity, pick)
            guard let key = chosen, let object = shown[actor][key] else { return }
            // A row deleted by a save this context has not merged, while other objects here
            // still point to it: the refresh finds it gone and it leaves the context, but those
            // references stay (Core Data's reference to a deleted row; what reading them
            // gives is not defined). Seed 900090 (long run, SQLite) reached it.
            if reference.values(key) == nil,
               models[actor].visible.contains(where: { $0.key != key && $0.value.references(key) }) { return }
            if !merge {
                // Only an object without unsaved relationship changes: refreshing one side of
                // a changed relationship alone leaves the graph inconsistent (Core Data's
                // documentation warns of it); what the save then writes is not defined.
                guard let model = models[actor].objects[key], !model.isInserted else { return }
                let old = model.snapshot ?? GraphValues()
                guard model.current.employees == old.employees, model.current.projects == old.projects,
                      model.current.members == old.members, model.current.tags == old.tags,
                      model.current.department == old.department, model.current.project == old.project else { return }
            }
            contexts[actor].performAndWait {
                contexts[actor].refresh(object, mergeChanges: merge)
                contexts[actor].undoStack?.removeAll()
            }
            if merge { models[actor].refreshMerging(key, store: reference) } else { models[actor].refreshDiscarding(key, store: reference) }
            models[actor].undoGroups.removeAll()
        case .reset(let actor):
            contexts[actor].performAndWait {
                contexts[actor].reset()
                contexts[actor].undoStack?.removeAll()
            }
            shown[actor] = [:]
            models[actor] = GraphContextModel()
            overtaken.remove(actor)
            if actor == 2 { missedByC.removeAll() }
        case .mergeSecondContainer:
            let c = contexts[2]
            for missed in missedByC {
                c.performAndWait { c.mergeChanges(fromSaveOf: missed.changes) }
                models[2].mergeExplicitly(missed.save, store: reference)
            }
            missedByC.removeAll()
        case .child(let actor, let steps, let saves):
            // Not in C while it holds saves it has not merged: C still shows rows another
            // container deleted (the reference keeps them for C), but its child, which reads
            // what C fetches from the store, does not; an edit there would pick an object the
            // child cannot show (seed 700338, long run).
            if actor == 2 && !missedByC.isEmpty { break }
            try childEpisode(actor, steps, saves: saves)
        case .reopen:
            close()
            first = try store.container()
            second = try store.container()
            openContexts()
            shown = [[:], [:], [:]]
            models = [GraphContextModel(), GraphContextModel(), GraphContextModel()]
            missedByC.removeAll()
            overtaken.removeAll()
            try compareStore("after reopening")
        default:
            break
        }
    }

    // MARK: Child contexts

    /// Runs `steps` in a new private-queue child of `actor`'s context, comparing every
    /// context after each step (the child stands in for its parent meanwhile), then saves the
    /// child into its parent or drops it. The child sees its parent's state, unsaved changes
    /// included, so its model starts as the parent's; saved, the parent holds the child's
    /// changes as unsaved changes of its own (its undo stack, which does not record them, is
    /// cleared); dropped, the parent is as before.
    private func childEpisode(_ actor: Int, _ steps: [GraphStep], saves: Bool) throws {
        let parent = contexts[actor]
        let parentModel = models[actor]
        // The parent's objects stay held meanwhile, as an application's would: a context holds
        // unchanged objects weakly, and one that merges nothing (C) would otherwise read what
        // it let go again from the store, newer than the view the reference keeps for it.
        let parentShown = shown[actor]
        defer { withExtendedLifetime(parentShown) {} }
        let child = parent.newChildContext(concurrencyType: .privateQueue, name: "child of \(GraphStep.contextNames[actor])")
        child.performAndWait { child.mergePolicy = .mergeByPropertyObjectTrump }
        contexts[actor] = child
        defer { contexts[actor] = parent }
        try compareContexts()   // the child shows what the parent shows; its objects are the ones edited
        for step in steps {
            if case .child(_, let inner, let innerSaves) = step {
                try childEpisode(actor, inner, saves: innerSaves)
            } else {
                try perform(step)
            }
            try compareContexts()
        }
        if saves {
            try child.performAndWait { try child.save() }
            parent.performAndWait { parent.undoStack?.removeAll() }
            models[actor].undoGroups.removeAll()
        } else {
            models[actor] = parentModel
        }
        contexts[actor] = parent
        try compareContexts()
    }

    // MARK: Edits

    private func edit(_ step: GraphStep, _ actor: Int) throws {
        let context = contexts[actor]
        switch step {
        case .insert(_, let entity):
            let key = newKey(entity)
            context.performAndWait {
                let object: ManagedObject
                switch entity {
                case .department:
                    let department = Department(context: context)
                    department.name = key
                    object = department
                case .employee:
                    let employee = Employee(context: context)
                    employee.serial = Int64(GraphStore.number(key))
                    employee.firstName = key
                    object = employee
                case .project:
                    let project = Project(context: context)
                    project.title = key
                    object = project
                case .tag:
                    let tag = Tag(context: context)
                    tag.label = key
                    object = tag
                }
                shown[actor][key] = object
            }
            models[actor].insert(key)
        case .setNumber(_, let entity, let pick):
            guard let key = key(actor, entity, pick) else { return }
            let value = freshNumber()
            if entity == .department {
                let department = try object(actor, key, as: Department.self)
                context.performAndWait { department.budget = Decimal(value) }
            } else {
                let employee = try object(actor, key, as: Employee.self)
                context.performAndWait { employee.age = Int16(value % 30_000) }
            }
            models[actor].setNumber(key, entity == .department ? value : value % 30_000)
        case .setText(_, let pick, let clear):
            guard let key = key(actor, .employee, pick) else { return }
            let value = clear ? nil : "n\(freshNumber())"
            let employee = try object(actor, key, as: Employee.self)
            context.performAndWait { employee.nickname = value }
            models[actor].setText(key, value)
        case .setDepartment(_, let e, let d):
            guard let key = key(actor, .employee, e) else { return }
            let target = d < 0 ? nil : self.key(actor, .department, d)
            if d >= 0 && target == nil { return }
            guard precondition(actor, referencing: target), precondition(actor, referencing: key) else { return }
            let employee = try object(actor, key, as: Employee.self)
            let department = try target.map { try object(actor, $0, as: Department.self) }
            context.performAndWait { employee.department = department }
            models[actor].setDepartment(key, target)
        case .setProject(_, let t, let p):
            guard let key = key(actor, .tag, t) else { return }
            let target = p < 0 ? nil : self.key(actor, .project, p)
            if p >= 0 && target == nil { return }
            guard precondition(actor, referencing: target), precondition(actor, referencing: key) else { return }
            let tag = try object(actor, key, as: Tag.self)
            let project = try target.map { try object(actor, $0, as: Project.self) }
            context.performAndWait { tag.project = project }
            models[actor].setProject(key, target)
        case .setMember(_, let p, let e, let member, let fromProject):
            // A removal removes one of the project's members (so it changes something).
            let members = key(actor, .project, p).flatMap { models[actor].objects[$0]?.current.members.sorted() } ?? []
            let removed = !member && !members.isEmpty ? members[e % members.count] : nil
            guard let projectKey = key(actor, .project, p), let employeeKey = removed ?? key(actor, .employee, e),
                  precondition(actor, referencing: projectKey), precondition(actor, referencing: employeeKey) else { return }
            let project = try object(actor, projectKey, as: Project.self)
            let employee = try object(actor, employeeKey, as: Employee.self)
            context.performAndWait {
                switch (member, fromProject) {
                case (true, true): project.members.insert(employee)
                case (false, true): project.members.remove(employee)
                case (true, false): employee.projects.insert(project)
                case (false, false): employee.projects.remove(project)
                }
            }
            models[actor].setMember(projectKey, employeeKey, member, fromProject: fromProject)
        case .reorderTags(_, let p, let by):
            guard let key = key(actor, .project, p), let tags = models[actor].objects[key]?.current.tags, tags.count > 1,
                  ([key] + tags).allSatisfy({ precondition(actor, referencing: $0) }) else { return }
            let cut = by % tags.count
            let rotated: [String] = Array(tags[cut...]) + Array(tags[..<cut])
            let project = try object(actor, key, as: Project.self)
            let objects = try rotated.map { try object(actor, $0, as: Tag.self) }
            context.performAndWait { project.tags = objects }
            models[actor].setTags(key, rotated)
        case .delete(_, let entity, let pick):
            guard let key = key(actor, entity, pick) else { return }
            // Deletes (and their delete rules) act on what the context shows: only where it
            // shows the store as it is, and no other context holds changes that could point
            // at what goes (a save of those would write a reference to a deleted row).
            guard isUpToDate(actor), !(0..<3).contains(where: { $0 != actor && models[$0].hasChanges }) else { return }
            let object = try object(actor, key, as: ManagedObject.self)
            context.performAndWait { context.delete(object) }
            models[actor].delete(key)
        default:
            break
        }
    }

    /// A relationship may point at an object only where the store still has it or it is new
    /// here: pointing at a row another context deleted would save a dangling reference (Core
    /// Data's merge would have removed the object from the context first).
    /// Nor at (or from) an object another context has deleted and not saved yet: that
    /// context's save then removes it under this context's unsaved change.
    private func precondition(_ actor: Int, referencing key: String?) -> Bool {
        guard let key else { return true }
        if (0..<3).contains(where: { $0 != actor && models[$0].objects[key]?.isDeleted == true }) { return false }
        return reference.rows[key] != nil || models[actor].objects[key]?.isInserted == true
    }

    // MARK: Saving and merging

    private func save(_ actor: Int) throws {
        let context = contexts[actor]
        let heard = Locked<ContextChanges?>(nil)
        let hadChanges = models[actor].hasChanges
        let remoteBefore = remoteCommits.value
        try context.performAndWait {
            let token = context.addObserver(for: .didSave) { changes in heard.withLock { $0 = changes } }
            defer { context.removeObserver(token) }
            try context.save()
        }
        let graphSave = models[actor].save(into: &reference)
        overtaken.remove(actor)
        saves += 1
        // A save whose only changes were to rows deleted elsewhere writes nothing and may
        // announce nothing (seed 900242, SQLite long run).
        guard (hadChanges && !graphSave.isEmpty) || heard.value != nil else {
            try compareStore("after \(GraphStep.contextNames[actor])'s save (nothing to save)")
            return
        }
        for other in 0..<3 where other != actor && models[other].hasChanges { overtaken.insert(other) }
        guard let changes = heard.value else { throw fail("\(GraphStep.contextNames[actor]) saved nothing, but has unsaved changes") }
        switch actor {
        case 0, 1:
            let other = 1 - actor
            models[other].mergeFromInbox(graphSave, store: reference)
            missedByC.append((changes, graphSave))
        default:
            if store.kind.notifiesOtherContainers {
                // The server pushes C's commit to the first container: wait for it to arrive.
                let arrived = eventually(timeout: .seconds(120)) { remoteCommits.value > remoteBefore }
                guard arrived else { throw fail("C's commit never reached the first container") }
                for other in 0..<2 { models[other].mergeFromInbox(graphSave, store: reference) }
            } else {
                for other in 0..<2 {
                    contexts[other].performAndWait { contexts[other].mergeChanges(fromSaveOf: changes) }
                    models[other].mergeExplicitly(graphSave, store: reference)
                }
            }
        }
        try compareStore("after \(GraphStep.contextNames[actor])'s save")
    }

    // MARK: Comparing

    /// Every context's objects and values, as it shows them, against the reference.
    private func compareContexts() throws {
        for actor in 0..<3 {
            models[actor].load(from: reference)
            let (seen, expected) = (withoutUnmergedDeletions(try read(actor), actor: actor),
                                    withoutUnmergedDeletions(models[actor].visible, actor: actor))
            if seen != expected {
                throw fail("context \(GraphStep.contextNames[actor]) shows\n\(Self.difference(seen, expected))")
            }
        }
    }

    /// The store as a fresh container reads it, against the reference.
    private func compareStore(_ when: String) throws {
        let reader = try store.container()
        defer { reader.persistentStoreCoordinator.close() }
        let context = reader.viewContext
        let seen = try context.performAndWait {
            var everything: [String: ManagedObject] = [:]
            try Self.fetchAll(context) { key, object in everything[key] = object }
            return everything.mapValues(Self.values)
        }
        let expected = reference.everything
        if seen != expected { throw fail("the store \(when) holds\n\(Self.difference(seen, expected))") }
    }

    /// C merges other contexts' saves only when told to: until then, an object whose row
    /// another context deleted is still the old object while something holds it, and once
    /// nothing does, the next read finds the row gone and shows it deleted, with default
    /// values (relationships hold object IDs, not objects, unlike Core Data's, which keep
    /// their destinations alive). Which of the two C shows is not defined, so for C both
    /// sides leave out objects whose rows are gone (other than C's own unsaved inserts) and
    /// references to them. Seed 900234 (long run, SQLite) reached it.
    private func withoutUnmergedDeletions(_ values: [String: GraphValues], actor: Int) -> [String: GraphValues] {
        guard actor == 2 else { return values }
        let model = models[actor]
        func gone(_ key: String) -> Bool { reference.values(key) == nil && model.objects[key]?.isInserted != true }
        var result = values.filter { !gone($0.key) }
        for key in result.keys {
            var object = result[key]!
            if let department = object.department, gone(department) { object.department = nil }
            if let project = object.project, gone(project) { object.project = nil }
            object.employees = object.employees.filter { !gone($0) }
            object.projects = object.projects.filter { !gone($0) }
            object.members = object.members.filter { !gone($0) }
            object.tags = object.tags.filter { !gone($0) }
            result[key] = object
        }
        return result
    }

    /// What context `actor` shows: a fetch of every entity, plus the objects it still has
    /// registered (a context that merges nothing keeps objects others deleted).
    private func read(_ actor: Int) throws -> [String: GraphValues] {
        let context = contexts[actor]
        return try context.performAndWait {
            var map: [String: ManagedObject] = [:]
            try Self.fetchAll(context) { key, object in map[key] = object }
            for object in context.registeredObjects where !object.isDeleted && !object.isFault {
                let key = Self.key(object)
                if map[key] == nil { map[key] = object }
            }
            var values: [String: GraphValues] = [:]
            for (key, object) in map {
                let read = Self.values(object)
                guard object.managedObjectContext === context, !object.isDeleted else { continue }
                values[key] = read
            }
            shown[actor] = map.filter { values[$0.key] != nil }
            return values
        }
    }

    private static func fetchAll(_ context: ManagedObjectContext, _ body: (String, ManagedObject) -> Void) throws {
        for department in try context.fetch(FetchRequest<Department>()) { body(key(department), department) }
        for employee in try context.fetch(FetchRequest<Employee>()) { body(key(employee), employee) }
        for project in try context.fetch(FetchRequest<Project>()) { body(key(project), project) }
        for tag in try context.fetch(FetchRequest<Tag>()) { body(key(tag), tag) }
    }

    static func key(_ object: ManagedObject) -> String {
        switch object {
        case let department as Department: department.name
        case let employee as Employee: "E\(employee.serial)"
        case let project as Project: project.title
        case let tag as Tag: tag.label
        default: "?"
        }
    }

    static func values(_ object: ManagedObject) -> GraphValues {
        var values = GraphValues()
        switch object {
        case let department as Department:
            values.number = NSDecimalNumber(decimal: department.budget).intValue
            values.employees = Set(department.employees.map(key))
        case let employee as Employee:
            values.number = Int(employee.age)
            values.text = employee.nickname
            values.department = employee.department.map(key)
            values.projects = Set(employee.projects.map(key))
        case let project as Project:
            values.members = Set(project.members.map(key))
            values.tags = project.tags.map(key)
        case let tag as Tag:
            values.project = tag.project.map(key)
        default:
            break
        }
        return values
    }

    /// The keys whose values differ, each with both sides.
    static func difference(_ seen: [String: GraphValues], _ expected: [String: GraphValues]) -> String {
        var lines: [String] = []
        for key in Set(seen.keys).union(expected.keys).sorted(by: { (GraphEntity.of($0).rawValue, GraphStore.number($0)) < (GraphEntity.of($1).rawValue, GraphStore.number($1)) })
        where seen[key] != expected[key] {
            lines.append("  \(key): \(seen[key].map(\.description) ?? "absent")   expected \(expected[key].map(\.description) ?? "absent")")
        }
        return lines.joined(separator: "\n")
    }
}
