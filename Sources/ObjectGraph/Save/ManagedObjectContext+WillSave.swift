extension ManagedObjectContext {
    /// The most rounds of `willSave()` a save runs before it gives up with
    /// ``ContextError/Code-swift.struct/saveDidNotSettle``.
    static let maximumWillSaveRounds = 100

    /// Calls `willSave()` on every inserted, updated and deleted object; then, as Core Data
    /// does, again on every object those calls inserted, deleted or changed (themselves
    /// included), round after round until a round changes nothing.
    ///
    /// A round costs one `willSave()` call per object: changes are collected by the context's
    /// change notes (`changedDuringHooks`), so a round in which no hook changes anything ends
    /// the loop without comparing any values.
    ///
    /// - Throws: ``ContextError`` (`saveDidNotSettle`) naming an object still changing after
    ///   ``maximumWillSaveRounds`` rounds. The changes the hooks made stay pending.
    func runWillSaveHooks() throws {
        changedDuringHooks = []
        updateChangeTracking()
        defer {
            changedDuringHooks = nil
            updateChangeTracking()
        }
        // The first round iterates copies of the sets: hooks may insert and delete.
        for object in insertedSet { object.willSave() }
        for object in updatedSet { object.willSave() }
        for object in deletedSet { object.willSave() }
        var round = 1
        while let changed = changedDuringHooks, !changed.isEmpty {
            var seen = Set<ObjectIdentifier>()
            // Objects inserted and deleted again within a round have left the context.
            let next = changed.filter { $0.context === self && seen.insert(ObjectIdentifier($0)).inserted }
            if next.isEmpty { return }
            guard round < Self.maximumWillSaveRounds else {
                let object = next[0]
                throw ContextError(
                    code: .saveDidNotSettle, objectID: object.objectID,
                    message: "willSave() still changed \(object.entity.name) \(object.objectID) after \(round) rounds, so the save never settles; "
                        + "in willSave(), set a property only when its new value differs from the current one. Nothing was written")
            }
            changedDuringHooks = []
            for object in next { object.willSave() }
            round += 1
        }
    }
}
