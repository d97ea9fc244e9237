import Foundation

// The object-graph generator's reference model: plain Swift values that say what the store
// must hold and what each context must show, by Core Data's rules (inverse maintenance, the
// suite model's delete rules, the `.mergeByPropertyObjectTrump` policy, and what save,
// rollback, undo, refresh, reset and merges do to pending changes). See
// ObjectGraphGeneratorTests for the judgements where the rules are the library's own.

/// The four entities of the suite model the generator uses; each object is named by a key
/// attribute that never changes: `Department.name` "D1", `Employee.serial` 1 ("E1"),
/// `Project.title` "P1", `Tag.label` "T1".
enum GraphEntity: Int, CaseIterable, Sendable, CustomStringConvertible {
    case department, employee, project, tag

    var prefix: String { ["D", "E", "P", "T"][rawValue] }
    var description: String { ["Department", "Employee", "Project", "Tag"][rawValue] }

    static func of(_ key: String) -> GraphEntity {
        switch key.first {
        case "D": .department
        case "E": .employee
        case "P": .project
        default: .tag
        }
    }
}

/// One object's values as one context shows them (or as the store holds them). Each entity
/// uses its own fields: Department `number` (budget) and `employees`; Employee `number`
/// (age), `text` (nickname), `department`, `projects`; Project `members`, `tags` (ordered);
/// Tag `project`.
struct GraphValues: Equatable, CustomStringConvertible {
    var number = 0
    var text: String? = nil
    var department: String? = nil
    var project: String? = nil
    var employees: Set<String> = []
    var projects: Set<String> = []
    var members: Set<String> = []
    var tags: [String] = []

    /// Whether any relationship of these values names `key`.
    func references(_ key: String) -> Bool {
        department == key || project == key || employees.contains(key) || projects.contains(key)
            || members.contains(key) || tags.contains(key)
    }

    var description: String {
        var parts: [String] = []
        if number != 0 { parts.append("n=\(number)") }
        if let text { parts.append("text=\(text)") }
        if let department { parts.append("dept=\(department)") }
        if let project { parts.append("project=\(project)") }
        if !employees.isEmpty { parts.append("employees=\(employees.sorted())") }
        if !projects.isEmpty { parts.append("projects=\(projects.sorted())") }
        if !members.isEmpty { parts.append("members=\(members.sorted())") }
        if !tags.isEmpty { parts.append("tags=\(tags)") }
        return "{" + parts.joined(separator: " ") + "}"
    }

    /// The values a row holds itself (attributes and foreign keys), the rest cleared.
    var owned: GraphValues {
        GraphValues(number: number, text: text, department: department, project: project)
    }
}

/// What the store holds: rows (attributes and foreign keys), the many-to-many pairs, and the
/// tags' order positions.
struct GraphStore: Equatable {
    var rows: [String: GraphValues] = [:]
    /// Project key → its members' keys (the join table).
    var pairs: Set<Pair> = []
    /// Tag key → its position in its project's ordered tags (the `Z_FOK_` column).
    var tagOrder: [String: Int] = [:]

    struct Pair: Hashable, Comparable, CustomStringConvertible {
        let project: String
        let employee: String
        static func < (a: Pair, b: Pair) -> Bool { (a.project, a.employee) < (b.project, b.employee) }
        var description: String { "\(project)-\(employee)" }
    }

    /// Every value of `key` as a context reads it now: the row with both sides of every
    /// relationship filled in from the rows, the pairs and the order positions.
    func values(_ key: String) -> GraphValues? {
        guard var values = rows[key] else { return nil }
        switch GraphEntity.of(key) {
        case .department:
            values.employees = Set(rows.filter { GraphEntity.of($0.key) == .employee && $0.value.department == key }.keys)
        case .employee:
            values.projects = Set(pairs.filter { $0.employee == key }.map(\.project))
        case .project:
            values.members = Set(pairs.filter { $0.project == key }.map(\.employee))
            values.tags = rows.filter { GraphEntity.of($0.key) == .tag && $0.value.project == key }.keys
                .sorted { (tagOrder[$0] ?? 0, GraphStore.number($0)) < (tagOrder[$1] ?? 0, GraphStore.number($1)) }
        case .tag:
            break
        }
        return values
    }

    static func number(_ key: String) -> Int { Int(key.dropFirst()) ?? 0 }

    /// Every object with all its values.
    var everything: [String: GraphValues] {
        var result: [String: GraphValues] = [:]
        for key in rows.keys { result[key] = values(key) }
        return result
    }
}

/// One registered object in one context: what it shows, its snapshot (what the context last
/// read or saved), and its place among the pending changes.
struct GraphObject: Equatable {
    var current: GraphValues
    /// nil for an object inserted and not saved.
    var snapshot: GraphValues?
    var isInserted = false
    var isDeleted = false
    /// Changed since the last save, rollback or refresh (Core Data's `isUpdated`), even if
    /// the values went back: merges leave such an object alone.
    var isDirty = false
}

/// One context in the reference: its registered objects, and the undo groups since the last
/// save (each the objects' states before the step that made it).
struct GraphContextModel {
    var objects: [String: GraphObject] = [:]
    var undoGroups: [[String: UndoRecord]] = []

    /// One object in an undo group: its state before the step (nil: the step inserted it)
    /// and after it (nil: the step removed it).
    struct UndoRecord {
        let before: GraphObject?
        let after: GraphObject?
    }

    var hasChanges: Bool { objects.values.contains { $0.isInserted || $0.isDeleted || ($0.isDirty && $0.current != $0.snapshot) } }

    /// The keys this context shows (registered and not deleted).
    var visible: [String: GraphValues] {
        objects.filter { !$0.value.isDeleted }.mapValues(\.current)
    }

    /// The objects of `entity` this context shows, in key order (how steps pick one).
    func keys(_ entity: GraphEntity) -> [String] {
        objects.filter { !$0.value.isDeleted && GraphEntity.of($0.key) == entity }.keys
            .sorted { GraphStore.number($0) < GraphStore.number($1) }
    }

    // MARK: Reading

    /// A fetch of everything: objects of the store not registered yet are registered with the
    /// store's values (registered ones keep theirs, as uniquing does).
    mutating func load(from store: GraphStore) {
        for key in store.rows.keys where objects[key] == nil {
            let values = store.values(key)!
            objects[key] = GraphObject(current: values, snapshot: values)
        }
    }

    // MARK: Editing (in memory, with inverses, as the library and Core Data do)

    mutating func insert(_ key: String) {
        objects[key] = GraphObject(current: GraphValues(), snapshot: nil, isInserted: true, isDirty: true)
    }

    /// Changes `key` with `change`; marks it dirty if anything changed.
    private mutating func modify(_ key: String, _ change: (inout GraphValues) -> Void) {
        guard var object = objects[key] else { return }
        let before = object.current
        change(&object.current)
        if object.current != before { object.isDirty = true }
        objects[key] = object
    }

    mutating func setNumber(_ key: String, _ value: Int) { modify(key) { $0.number = value } }
    mutating func setText(_ key: String, _ value: String?) { modify(key) { $0.text = value } }

    /// `employee.department = department`, and both inverses.
    mutating func setDepartment(_ employee: String, _ department: String?) {
        let old = objects[employee]?.current.department
        guard old != department else { return }
        modify(employee) { $0.department = department }
        if let old { modify(old) { $0.employees.remove(employee) } }
        if let department { modify(department) { $0.employees.insert(employee) } }
    }

    /// `tag.project = project`, and both inverses (appended at the end of the new project's tags).
    mutating func setProject(_ tag: String, _ project: String?) {
        let old = objects[tag]?.current.project
        guard old != project else { return }
        modify(tag) { $0.project = project }
        if let old { modify(old) { $0.tags.removeAll { $0 == tag } } }
        if let project { modify(project) { if !$0.tags.contains(tag) { $0.tags.append(tag) } } }
    }

    /// Adds or removes the pair through one side; the other side follows only when the
    /// changed side changed (a side that already shows the change changes nothing).
    mutating func setMember(_ project: String, _ employee: String, _ member: Bool, fromProject: Bool) {
        let shown = fromProject ? objects[project]?.current.members.contains(employee) : objects[employee]?.current.projects.contains(project)
        guard shown != member else { return }
        if member {
            modify(project) { $0.members.insert(employee) }
            modify(employee) { $0.projects.insert(project) }
        } else {
            modify(project) { $0.members.remove(employee) }
            modify(employee) { $0.projects.remove(project) }
        }
    }

    /// `project.tags = tags` (a reordering of its own tags, here), with inverses.
    mutating func setTags(_ project: String, _ tags: [String]) {
        guard let old = objects[project]?.current.tags, old != tags else { return }
        modify(project) { $0.tags = tags }
        for tag in old where !tags.contains(tag) { modify(tag) { $0.project = nil } }
        for tag in tags where !old.contains(tag) {
            if let previous = objects[tag]?.current.project, previous != project { modify(previous) { $0.tags.removeAll { $0 == tag } } }
            modify(tag) { $0.project = project }
        }
    }

    /// Deletes `key` and applies the suite model's delete rules at once: Department.employees
    /// cascade, Project.tags cascade, every other relationship nullify.
    mutating func delete(_ key: String) {
        guard var object = objects[key], !object.isDeleted else { return }
        let values = object.current
        if object.isInserted {
            objects[key] = nil
        } else {
            object.isDeleted = true
            objects[key] = object
        }
        switch GraphEntity.of(key) {
        case .department:
            for employee in values.employees.sorted() {
                modify(employee) { $0.department = nil }
                delete(employee)
            }
        case .employee:
            if let department = values.department { modify(department) { $0.employees.remove(key) } }
            for project in values.projects { modify(project) { $0.members.remove(key) } }
        case .project:
            for employee in values.members { modify(employee) { $0.projects.remove(key) } }
            for tag in values.tags {
                modify(tag) { $0.project = nil }
                delete(tag)
            }
        case .tag:
            if let project = values.project { modify(project) { $0.tags.removeAll { $0 == key } } }
        }
    }

    // MARK: Undo

    /// Records the step that changed the context from `before` as one undo group: each
    /// changed object's state before and after the step.
    mutating func recordUndoGroup(before: [String: GraphObject]) {
        var group: [String: UndoRecord] = [:]
        for key in Set(before.keys).union(objects.keys) where before[key] != objects[key] {
            group[key] = UndoRecord(before: before[key], after: objects[key])
        }
        if !group.isEmpty { undoGroups.append(group) }
    }

    /// `undo()`: reverts what the last group changed, property by property (a value merged
    /// into the object since stays); an undone insert leaves the context, an undone delete
    /// comes back. An object stays changed (Core Data keeps it among the updated objects,
    /// and a merge leaves it alone).
    mutating func undo() {
        guard let group = undoGroups.popLast() else { return }
        for (key, record) in group {
            guard let before = record.before else {
                objects[key] = nil
                continue
            }
            guard let after = record.after, var object = objects[key] else {
                objects[key] = before
                continue
            }
            let (old, new) = (before.current, after.current)
            if new.number != old.number { object.current.number = old.number }
            if new.text != old.text { object.current.text = old.text }
            if new.department != old.department { object.current.department = old.department }
            if new.project != old.project { object.current.project = old.project }
            func revert(_ now: Set<String>, _ old: Set<String>, _ new: Set<String>) -> Set<String> {
                now.subtracting(new.subtracting(old)).union(old.subtracting(new))
            }
            object.current.employees = revert(object.current.employees, old.employees, new.employees)
            object.current.projects = revert(object.current.projects, old.projects, new.projects)
            object.current.members = revert(object.current.members, old.members, new.members)
            if new.tags != old.tags {
                if Set(new.tags) == Set(old.tags) {
                    object.current.tags = old.tags        // a reorder: the old order comes back
                } else {
                    // What the group added leaves, what it removed comes back at its old
                    // place; tags merged in since stay (the library records the inverse's
                    // inserts and removals, not the list).
                    var tags = object.current.tags.filter { old.tags.contains($0) || !new.tags.contains($0) }
                    for (index, tag) in old.tags.enumerated() where !new.tags.contains(tag) && !tags.contains(tag) {
                        tags.insert(tag, at: min(index, tags.count))
                    }
                    object.current.tags = tags
                }
            }
            object.isDeleted = before.isDeleted
            object.isInserted = before.isInserted
            object.isDirty = object.isDirty || before.isDirty
            objects[key] = object
        }
    }

    // MARK: Whole-context operations

    /// `rollback()`: inserted objects leave, changed and deleted ones return to their snapshot.
    mutating func rollback() {
        for (key, object) in objects {
            if object.isInserted {
                objects[key] = nil
            } else if object.isDirty || object.isDeleted {
                objects[key] = GraphObject(current: object.snapshot ?? object.current, snapshot: object.snapshot)
            }
        }
        undoGroups.removeAll()
    }

    /// `refresh(key, mergeChanges: false)`: the object's changes are dropped and it reads the
    /// store again (gone from the context when its row is gone).
    mutating func refreshDiscarding(_ key: String, store: GraphStore) {
        guard let object = objects[key], !object.isInserted else { return }
        if let values = store.values(key) {
            objects[key] = GraphObject(current: values, snapshot: values)
        } else {
            objects[key] = nil
        }
    }

    /// `refresh(key, mergeChanges: true)`: the store's values with the object's own changes
    /// re-applied: a changed attribute or to-one keeps its value, a changed to-many keeps what
    /// was added and removed (Core Data: "any changes that were made are re-applied").
    mutating func refreshMerging(_ key: String, store: GraphStore) {
        guard var object = objects[key], !object.isInserted else { return }
        guard let stored = store.values(key) else {
            // Row gone: the refresh finds it deleted; it leaves the context.
            objects[key] = nil
            return
        }
        object.current = Self.reapplying(object, to: stored)
        object.snapshot = stored
        objects[key] = object
    }

    /// `base` with the attributes and to-ones that `object` changed (its values against its
    /// snapshot) taken from `source`.
    static func changedScalars(of object: GraphObject, over base: GraphValues, from source: GraphValues) -> GraphValues {
        let old = object.snapshot ?? GraphValues()
        let mine = object.current
        var result = base
        if mine.number != old.number { result.number = source.number }
        if mine.text != old.text { result.text = source.text }
        if mine.department != old.department { result.department = source.department }
        if mine.project != old.project { result.project = source.project }
        return result
    }

    /// `stored` with the changes of `object` (its values against its snapshot) re-applied.
    static func reapplying(_ object: GraphObject, to stored: GraphValues) -> GraphValues {
        let old = object.snapshot ?? GraphValues()
        let mine = object.current
        var merged = changedScalars(of: object, over: stored, from: mine)
        func reapply(_ now: Set<String>, _ was: Set<String>, _ stored: Set<String>) -> Set<String> {
            now == was ? stored : stored.subtracting(was.subtracting(now)).union(now.subtracting(was))
        }
        merged.employees = reapply(mine.employees, old.employees, stored.employees)
        merged.projects = reapply(mine.projects, old.projects, stored.projects)
        merged.members = reapply(mine.members, old.members, stored.members)
        if mine.tags != old.tags {
            let was = Set(old.tags)
            merged.tags = mine.tags.filter { stored.tags.contains($0) || !was.contains($0) }
                + stored.tags.filter { !was.contains($0) && !mine.tags.contains($0) }
        }
        return merged
    }

    // MARK: Merging another context's save

    /// The merge a context that merges changes makes at its next access: clean loaded objects
    /// the save changed take the store's values; objects with unsaved changes keep them and
    /// take the store's values of every other property (a changed to-many keeps what was
    /// added and removed, over the stored members), while a changed attribute or to-one
    /// keeps its old snapshot (their save meets the new version under the merge policy);
    /// deleted ones leave.
    mutating func mergeFromInbox(_ save: GraphSave, store: GraphStore) {
        let before = objects
        defer { followMoves(save, before: before) }
        for key in save.deleted { objects[key] = nil }
        for key in save.changed {
            guard var object = objects[key], !object.isDeleted, !object.isInserted, let values = store.values(key) else { continue }
            guard object.isDirty && object.current != object.snapshot, let old = object.snapshot else {
                objects[key] = GraphObject(current: values, snapshot: values)
                continue
            }
            let snapshot = Self.changedScalars(of: object, over: values, from: old)
            object.current = Self.reapplying(object, to: values)
            object.snapshot = snapshot
            objects[key] = object
        }
    }

    /// `mergeChanges(fromSaveOf:)`: deleted objects leave, changed ones are refreshed with
    /// their own changes merged.
    mutating func mergeExplicitly(_ save: GraphSave, store: GraphStore) {
        let before = objects
        defer { followMoves(save, before: before) }
        for key in save.deleted where objects[key]?.isInserted != true { objects[key] = nil }
        for key in save.changed {
            guard let object = objects[key], !object.isDeleted else { continue }
            if object.isDirty {
                refreshMerging(key, store: store)
            } else if let values = store.values(key) {
                objects[key] = GraphObject(current: values, snapshot: values)
            }
        }
    }
}

extension GraphContextModel {
    /// After a merge, the other side of what the save moved (`MemberMoves` in the library):
    /// a deleted object leaves every list that names it; an object whose department or
    /// project the merge changed leaves its old owner's list and joins the new owner's (at
    /// the end), in what they show and in their snapshots, unless the object changed that
    /// to-one itself (its own change wins). Locally deleted owners are left as they are.
    fileprivate mutating func followMoves(_ save: GraphSave, before: [String: GraphObject]) {
        for deleted in save.deleted {
            for key in objects.keys where objects[key]?.isDeleted == false {
                objects[key]!.withBothSides { values in
                    values.employees.remove(deleted)
                    values.projects.remove(deleted)
                    values.members.remove(deleted)
                    values.tags.removeAll { $0 == deleted }
                }
            }
        }
        for key in save.changed.sorted() {
            guard let was = before[key], !was.isDeleted, let now = objects[key] else { continue }
            func moved(_ path: KeyPath<GraphValues, String?>) -> (old: String?, new: String?)? {
                if let snapshot = was.snapshot, was.isDirty, snapshot[keyPath: path] != was.current[keyPath: path] { return nil }
                let (old, new) = (was.current[keyPath: path], now.current[keyPath: path])
                return old == new ? nil : (old, new)
            }
            if let (old, new) = moved(\.department) {
                if let old { withOwner(old) { $0.employees.remove(key) } }
                if let new { withOwner(new, unless: { $0.employees.contains(key) }) { $0.employees.insert(key) } }
            }
            if let (old, new) = moved(\.project) {
                if let old { withOwner(old) { $0.tags.removeAll { $0 == key } } }
                if let new { withOwner(new, unless: { $0.tags.contains(key) }) { $0.tags.append(key) } }
            }
        }
    }

    /// Applies `change` to the registered, not deleted owner `key` (shown and snapshot). With
    /// `unless` (an addition), nothing changes where the owner knew of the member already
    /// (its snapshot, or what it shows when it has none), and what it shows changes only
    /// where it does not show the member.
    private mutating func withOwner(_ key: String, unless known: ((GraphValues) -> Bool)? = nil,
                                    _ change: (inout GraphValues) -> Void) {
        guard var owner = objects[key], !owner.isDeleted else { return }
        if let known {
            guard !known(owner.snapshot ?? owner.current) else { return }
            if owner.snapshot != nil { change(&owner.snapshot!) }
            if !known(owner.current) { change(&owner.current) }
        } else {
            owner.withBothSides(change)
        }
        objects[key] = owner
    }
}

extension GraphObject {
    /// Applies `change` to what the object shows and to its snapshot.
    mutating func withBothSides(_ change: (inout GraphValues) -> Void) {
        change(&current)
        if snapshot != nil { change(&snapshot!) }
    }
}

/// What one save did: the objects it wrote or changed in memory (Core Data's updated
/// objects of the save, relationship-only changes included), inserted and deleted.
struct GraphSave {
    var changed: Set<String> = []
    var inserted: Set<String> = []
    var deleted: Set<String> = []

    /// Whether the save wrote anything (changes to rows deleted elsewhere write nothing).
    var isEmpty: Bool { changed.isEmpty && inserted.isEmpty && deleted.isEmpty }
}

extension GraphContextModel {
    /// Saves this context into `store` under `.mergeByPropertyObjectTrump`: inserted rows,
    /// each changed object's changed values written over the row as it is now (a row deleted
    /// elsewhere: the deletion wins and the object leaves), to-many changes written as what
    /// was added and removed, deleted rows (and their join rows) removed.
    mutating func save(into store: inout GraphStore) -> GraphSave {
        var save = GraphSave()
        var orderedLists: [(project: String, now: [String], old: [String])] = []
        let keys = objects.keys.sorted()
        // Inserts.
        for key in keys {
            guard let object = objects[key], object.isInserted, !object.isDeleted else { continue }
            save.inserted.insert(key)
            store.rows[key] = object.current.owned
        }
        // Updates (and the to-many changes of inserted objects).
        for key in keys {
            guard let object = objects[key], !object.isDeleted, object.isInserted || object.isDirty else { continue }
            let old = object.snapshot ?? GraphValues()
            let now = object.current
            if !object.isInserted {
                guard now != old else { continue }
                guard var row = store.rows[key] else {
                    // Deleted elsewhere: the deletion wins, the object leaves this context,
                    // and nothing is written for it.
                    objects[key] = nil
                    continue
                }
                save.changed.insert(key)
                if now.number != old.number { row.number = now.number }
                if now.text != old.text { row.text = now.text }
                if now.department != old.department { row.department = now.department }
                if now.project != old.project { row.project = now.project }
                store.rows[key] = row
            }
            for employee in now.members.subtracting(old.members) { store.pairs.insert(.init(project: key, employee: employee)) }
            for employee in old.members.subtracting(now.members) { store.pairs.remove(.init(project: key, employee: employee)) }
            for project in now.projects.subtracting(old.projects) { store.pairs.insert(.init(project: project, employee: key)) }
            for project in old.projects.subtracting(now.projects) { store.pairs.remove(.init(project: project, employee: key)) }
            if now.tags != old.tags { orderedLists.append((key, now.tags, old.tags)) }
        }
        // Positions, once every row is written: the context's list, then the tags the store
        // holds for the project that this context never knew of (another context appended
        // them since), in stored order; a tag another save moved to another project since
        // this context read it keeps the position that project gave it.
        for (key, now, old) in orderedLists {
            let known = Set(now).union(old)
            let stored = store.values(key)?.tags ?? []
            let list = (now + stored.filter { !known.contains($0) }).filter { store.rows[$0]?.project == key }
            for (position, tag) in list.enumerated() { store.tagOrder[tag] = position + 1 }
        }
        // Deletes.
        for key in keys {
            guard let object = objects[key], object.isDeleted else { continue }
            save.deleted.insert(key)
            store.rows[key] = nil
            store.pairs = store.pairs.filter { $0.project != key && $0.employee != key }
            store.tagOrder[key] = nil
            objects[key] = nil
        }
        // Afterwards: what was saved is the snapshot; values the merge policy took from the
        // store (changed elsewhere, not here) show in the saved objects.
        for key in save.inserted.union(save.changed) {
            guard var object = objects[key], let row = store.rows[key] else { continue }
            object.current.number = row.number
            object.current.text = row.text
            object.current.department = row.department
            object.current.project = row.project
            object.snapshot = object.current
            object.isInserted = false
            object.isDirty = false
            objects[key] = object
        }
        for (key, object) in objects where object.isDirty {
            objects[key] = GraphObject(current: object.current, snapshot: object.current)
        }
        undoGroups.removeAll()
        return save
    }
}
