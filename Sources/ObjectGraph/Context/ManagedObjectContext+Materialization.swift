import CObjectGraphRuntime

// Rows into objects: each fetched row becomes the one registered object of its ID (new, or a
// fault filled), and its `awakeFromFetch()` runs once the read is over.
extension ManagedObjectContext {
    /// The registered object for a fetched row: an existing one (a fault gets the row's
    /// values; an object with values keeps them), or a new one. A filled object awaits its
    /// `awakeFromFetch()`, which the caller runs once the read is over (``awakeFetched(_:)``).
    @inline(__always)
    func register(_ row: StoreRow) -> ManagedObject {
        if let existing = registered[row.id] {
            if existing.state.contains(.fault) { fill(existing, with: row.values, version: row.version) }
            return existing
        }
        let object = ReflectionRecorder.materialize(row.id)
        object.context = self
        registered.set(object, for: row.id)
        fill(object, with: row.values, version: row.version)
        return object
    }

    @inline(__always)
    func fill(_ object: ManagedObject, with values: ContiguousArray<SlotValue>, version: Int64) {
        object.values = values
        object.snapshot = values
        object.version = version
        object.state.remove(.fault)
        object.state.insert(.awaitingAwake)
    }

    /// Runs `awakeFromFetch()` on the objects of `objects` that a read filled, once that read
    /// is over. A hook may touch relationships, fetch or save; inside the read it would wait
    /// for the connection (an in-memory store's reads hold the coordinator's write lock) or
    /// re-enter the row loop.
    @inline(__always)
    func awakeFetched(_ objects: some Sequence<ManagedObject>) {
        for object in objects where object.state.contains(.awaitingAwake) { awake(object) }
    }

    /// Runs `awakeFromFetch()` on an object just filled from a row. As in Core Data, values set
    /// in the hook (typically transients) are not changes: they become part of the fetched state.
    func awake(_ object: ManagedObject) {
        object.state.remove(.awaitingAwake)
        let hadChanges = object.state.contains(.updated)
        object.awakeFromFetch()
        if !hadChanges && object.state.contains(.updated) {
            object.state.remove(.updated)
            updatedSet.remove(object)
            object.snapshot = object.values
        }
    }
}

extension ReflectionRecorder {
    /// Instantiates `id`'s class for a fetched object or a fault: the initializer takes `id`
    /// and loads no default values (the caller fills the values, or leaves a fault).
    static func materialize(_ id: ObjectID) -> ManagedObject {
        withUnsafePointer(to: id) { pointer in
            og_thread().pointee.materializing = UnsafeRawPointer(pointer)
            return id.entity.managedClass.init(entity: id.entity, insertInto: nil)
        }
    }
}
