import OrderedCollections

/// Records a context's changes so ``ManagedObjectContext/undo()`` can revert them, one group
/// at a time. A group closes at each ``ManagedObjectContext/processPendingChanges()`` (which
/// fetches and saves call); a save clears the stack.
///
/// Off by default, as in Core Data: set `context.undoStack = UndoStack()` to turn it on.
public final class UndoStack {
    enum Entry {
        /// A value set whole: `old` comes back, except for an unordered to-many, which takes
        /// back what `new` added and removed and keeps members merged in since.
        case change(ManagedObject, slot: Int, old: SlotValue, new: SlotValue)
        /// An ID added to a to-many relationship (recorded as a delta, not a copy of the set).
        case toManyInsert(ManagedObject, slot: Int, id: ObjectID)
        /// An ID removed from a to-many relationship at `index`.
        case toManyRemove(ManagedObject, slot: Int, id: ObjectID, index: Int)
        case insert(ManagedObject)
        case delete(ManagedObject, wasInserted: Bool)
    }

    private(set) var groups: [[Entry]] = []
    private var open: [Entry] = []
    /// The most groups kept; older ones are dropped.
    public var levelsOfUndo: Int

    public init(levelsOfUndo: Int = 100) {
        self.levelsOfUndo = levelsOfUndo
    }

    /// Whether there is anything to undo.
    public var canUndo: Bool { !open.isEmpty || !groups.isEmpty }

    func record(_ entry: Entry) { open.append(entry) }

    func closeGroup() {
        guard !open.isEmpty else { return }
        for case .insert(let object) in open { object.state.remove(.insertedInOpenUndoGroup) }
        groups.append(open)
        open = []
        if groups.count > levelsOfUndo { groups.removeFirst(groups.count - levelsOfUndo) }
    }

    func popGroup() -> [Entry]? {
        closeGroup()
        return groups.popLast()
    }

    /// Forgets everything recorded.
    public func removeAll() {
        for case .insert(let object) in open { object.state.remove(.insertedInOpenUndoGroup) }
        groups.removeAll()
        open.removeAll()
    }
}

extension ManagedObjectContext {
    /// Reverts the most recent group of changes (inserts, deletes, value changes) made since
    /// the last save. Does nothing without an ``undoStack`` or with nothing to undo.
    public func undo() {
        willAccess()
        guard let stack = undoStack, let group = stack.popGroup() else { return }
        let recording = undoStack
        undoStack = nil
        defer { undoStack = recording }
        for entry in group.reversed() {
            switch entry {
            case .change(let object, let slot, let old, let new):
                guard object.values.indices.contains(slot) else { continue }
                if let relationship = object.entity.relationshipAtSlot[slot], relationship.isToMany, !relationship.isOrdered,
                   case .objects(let was) = old, case .objects(let set) = new, let now = loadedMembers(object, slot) {
                    // Another context's save merged since may have changed the members too.
                    var reverted = now.filter { was.contains($0) || !set.contains($0) }
                    for id in was where !set.contains(id) { reverted.append(id) }
                    object.setPrimitiveValue(.objects(reverted), slot: slot)
                } else {
                    object.setPrimitiveValue(old, slot: slot)
                }
            case .toManyInsert(let object, let slot, let id):
                guard var ids = loadedMembers(object, slot) else { continue }
                ids.remove(id)
                object.setPrimitiveValue(.objects(ids), slot: slot)
            case .toManyRemove(let object, let slot, let id, let index):
                guard var ids = loadedMembers(object, slot) else { continue }
                ids.insert(id, at: min(index, ids.count))
                object.setPrimitiveValue(.objects(ids), slot: slot)
            case .insert(let object):
                insertedSet.remove(object)
                object.state.remove(.inserted)
                object.state.insert(.deleted)
                unregister(object)
            case .delete(let object, let wasInserted):
                object.state.remove(.deleted)
                deletedSet.remove(object)
                // Changes made before the delete are unsaved changes again.
                if !wasInserted && object.state.contains(.updated) { updatedSet.insert(object) }
                if wasInserted {
                    object.context = self
                    object.state.insert(.inserted)
                    registered.set(object, for: object.objectID)
                    insertedSet.insert(object)
                }
            }
        }
        objectsDidChangePending = true
    }

    /// The members of the to-many at `slot` of `object`, loaded first when a refresh or a
    /// merge since the change left them to load (or the object a fault); nil for an object
    /// that has left this context.
    private func loadedMembers(_ object: ManagedObject, _ slot: Int) -> OrderedSet<ObjectID>? {
        guard object.context === self, let relationship = object.entity.relationshipAtSlot[slot] else { return nil }
        if object.isFault { fulfillFault(object) }
        guard object.values.indices.contains(slot) else { return nil }
        if case .unloaded = object.values[slot] { _ = loadToMany(object, relationship) }
        guard case .objects(let ids) = object.values[slot] else { return nil }
        return ids
    }
}
