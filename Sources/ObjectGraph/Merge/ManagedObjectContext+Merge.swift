import Foundation
import OrderedCollections

// Merging other contexts' saves into this one, and refreshing objects from the store.
extension ManagedObjectContext {
    /// Posts a saved change set; merged on this context's own thread at its next entry point.
    func enqueue(_ changes: ChangeSet) {
        _ = inbox.post(changes)
    }

    /// Merges every waiting change set: unchanged registered objects take the saved values,
    /// deleted ones become deleted and leave the context. Objects with unsaved changes keep
    /// them and take the saved values of every other property (`mergeSaved`); their save
    /// then meets the new version and the merge policy decides. An entity
    /// deletion (a batch delete without a predicate) costs one pass over the registered objects.
    ///
    /// Observers hear every updated ID, also of objects this context holds no loaded copy of
    /// (not registered, or a fault): fetched results judge those against the store, since
    /// such an object may have started to match. After an overflow they hear
    /// ``ContextChanges/invalidatedAll``: nothing can be listed, everything may have changed.
    func drainInbox() {
        let (sets, overflowed) = inbox.take()
        var merged = ContextChanges()
        if overflowed {
            merged.invalidatedAll = true
            // Too much was saved elsewhere to keep: every registered object without unsaved
            // changes turns into a fault and reloads (or turns out deleted) on next touch.
            for object in registered.objects {
                let id = object.objectID
                guard !object.isFault, !object.isInserted, !object.isUpdated, !object.isDeleted else { continue }
                object.values = []
                object.snapshot = []
                object.state = [.fault]
                merged.updated.insert(id)
            }
        }
        for set in sets {
            if !set.remapped.isEmpty { adoptPermanentIDs(set.remapped) }
            var moves = MemberMoves()
            var deleted = set.deleted
            for deletion in set.deletedEntities { deleted += registered.objects.lazy.map(\.objectID).filter(deletion.contains) }
            for id in deleted {
                moves.note(id, shown: nil, saved: .deleted, changedKeys: nil)
                guard let object = registered[id] else { continue }
                forgetDeleted(object)
                merged.deleted.insert(id)
            }
            for (id, values, version) in set.updated {
                guard let object = registered[id], !object.isFault else {
                    // Nothing loaded here to update; the row changed all the same.
                    moves.note(id, shown: nil, saved: .values(values), changedKeys: set.changes.changedKeys[id])
                    merged.updated.insert(id)
                    merged.changedKeys[id] = set.changes.changedKeys[id]
                    continue
                }
                // A parent's values are its current ones, whatever the version (an unsaved
                // change keeps it); a store's are newer only with a newer version.
                guard !object.isDeleted, set.fromParent || version > object.version else { continue }
                // An undone change is none: such an object takes the save like a clean one.
                let changed = object.isUpdated ? object.changedSlots() : []
                moves.note(id, shown: object.values, keeping: Set(changed), saved: .values(values), changedKeys: set.changes.changedKeys[id])
                if !changed.isEmpty {
                    mergeSaved(values, into: object, keeping: changed)
                    merged.updated.insert(id)
                    merged.changedKeys[id] = set.changes.changedKeys[id]
                    continue
                }
                object.values = values
                object.snapshot = values
                object.version = version
                merged.updated.insert(id)
                merged.changedKeys[id] = set.changes.changedKeys[id]
            }
            merged.inserted.formUnion(set.changes.inserted)
            if !moves.isEmpty { merged.noteOwners(moves.apply(in: self)) }
        }
        post(.objectsDidChange, merged)
        if hasMergingChildren { tellChildren(merged: sets, overflowed: overflowed) }
    }

    /// Another context's saved row, merged into `object`, which has unsaved changes in the
    /// `changed` slots: every other property takes the saved value, in what the object shows
    /// and in its snapshot, so it agrees with the inverse relationships that save changed. A
    /// changed to-many keeps what this context added and removed, re-applied to the members
    /// the store holds now. Changed attributes and to-ones keep the value and the snapshot
    /// they had, and the object keeps its version: its save meets the newer row under the
    /// merge policy, as before the merge.
    private func mergeSaved(_ saved: ContiguousArray<SlotValue>, into object: ManagedObject, keeping changed: [Int]) {
        guard !object.snapshot.isEmpty else { return }
        let local = object.values
        let before = object.snapshot
        let properties = object.entity.properties
        for slot in saved.indices where !properties[slot].isTransient && !changed.contains(slot) {
            object.values[slot] = saved[slot]
            object.snapshot[slot] = saved[slot]
        }
        for slot in changed {
            guard let relationship = object.entity.relationshipAtSlot[slot], relationship.isToMany,
                  case .objects(let mine) = local[slot] else { continue }
            object.values[slot] = saved[slot]
            reapplyToManyChange(object, relationship, was: before[slot].objectIDs ?? [], now: mine)
        }
    }

    /// An object someone else deleted: it leaves the context, marked deleted. A fault gets
    /// default values, so reading it afterwards never finds an empty slot buffer.
    private func forgetDeleted(_ object: ManagedObject) {
        insertedSet.remove(object)
        updatedSet.remove(object)
        deletedSet.remove(object)
        if object.isFault {
            markVanished(object)
        } else {
            object.state = [.deleted]
            unregister(object)
        }
    }

    /// Merges a `.didSave` change set from a context of another coordinator on the same
    /// store file: refreshes the registered objects it names.
    ///
    /// The other side of every to-one the save changed follows here too: an object another
    /// save moved leaves the loaded lists of its old owners in this context, even when the
    /// saving context did not know those owners (its view was older than the store's).
    public func mergeChanges(fromSaveOf changes: ContextChanges) {
        willAccess()
        var moves = MemberMoves()
        for id in changes.deleted {
            let object = registered[id]
            if object?.isInserted == true { continue }
            moves.note(id, shown: nil, saved: .deleted, changedKeys: nil)
            if let object { forgetDeleted(object) }
        }
        for id in changes.updated {
            guard let object = registered[id], !object.isFault else {
                moves.note(id, shown: nil, saved: .unknown, changedKeys: changes.changedKeys[id])
                continue
            }
            let shown = object.values
            let changed = Set(object.isUpdated ? object.changedSlots() : [])
            refresh(object, mergeChanges: true)
            let saved: SavedValues = object.context === self && !object.isFault ? .values(object.values) : .deleted
            moves.note(id, shown: shown, keeping: changed, saved: saved, changedKeys: changes.changedKeys[id])
        }
        var merged = changes
        if !moves.isEmpty { merged.noteOwners(moves.apply(in: self)) }
        post(.objectsDidChange, merged)
    }

    /// Brings `object` up to date with the store. With `mergeChanges` false its unsaved
    /// changes are discarded and it turns into a fault (values load again on next touch);
    /// with true its values are re-read and its unsaved changes kept on top.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        willAccess()
        guard object.context === self, !object.isInserted, !object.isFault else { return }
        persistentStoreCoordinator.rowCache.remove([object.objectID])
        guard mergeChanges else {
            updatedSet.remove(object)
            deletedSet.remove(object)
            object.values = []
            object.snapshot = []
            object.state = [.fault]
            return
        }
        let local = object.values
        let before = object.snapshot
        let changed = object.changedSlots()
        object.state.insert(.fault)
        fulfillFault(object)
        guard object.context === self else { return }
        for slot in changed {
            guard let relationship = object.entity.relationshipAtSlot[slot], relationship.isToMany,
                  case .objects(let mine) = local[slot] else {
                object.values[slot] = local[slot]
                continue
            }
            // A to-many's change is what was added and removed: re-applied to the members the
            // store holds now, which become the snapshot, so the save writes exactly the change.
            reapplyToManyChange(object, relationship, was: before.isEmpty ? [] : before[slot].objectIDs ?? [], now: mine)
        }
        for slot in object.values.indices where object.entity.properties[slot].isTransient { object.values[slot] = local[slot] }
    }

    /// Reads the loaded to-many `relationship` of `object` from the store again, keeping what
    /// this context added and removed.
    func reloadToMany(_ object: ManagedObject, _ relationship: RelationshipDescription) {
        let slot = relationship.slot
        guard relationship.isToMany, case .objects(let mine) = object.values[slot] else { return }
        let was = object.snapshot.isEmpty ? mine : object.snapshot[slot].objectIDs ?? mine
        object.values[slot] = .unloaded
        reapplyToManyChange(object, relationship, was: was, now: mine)
    }

    /// Sets the to-many `relationship` of `object` (just refreshed) to the members the store
    /// holds, with the change from `was` to `now` applied: this context's additions appended
    /// (in `now`'s order), its removals taken out. An ordered relationship keeps this
    /// context's order for the members it kept, followed by those added elsewhere; an
    /// unordered one that ends with the stored members takes the snapshot's value, so the
    /// object has no change left there (seed 922022).
    private func reapplyToManyChange(_ object: ManagedObject, _ relationship: RelationshipDescription,
                                     was: OrderedSet<ObjectID>, now: OrderedSet<ObjectID>) {
        let slot = relationship.slot
        if case .unloaded = object.values[slot] { _ = loadToMany(object, relationship) }
        let stored = object.values[slot].objectIDs ?? []
        if !object.snapshot.isEmpty { object.snapshot[slot] = .objects(stored) }
        var merged = OrderedSet<ObjectID>()
        for id in now where stored.contains(id) || !was.contains(id) { merged.append(id) }
        for id in stored where !was.contains(id) && !now.contains(id) { merged.append(id) }
        // Back at the stored members (in another order) is no change: the slot takes the snapshot's value.
        object.values[slot] = object.toManyValue(relationship, merged)
    }
}

extension ContextChanges {
    /// Notes owners whose side of a relationship a merge corrected (`MemberMoves`).
    mutating func noteOwners(_ owners: [(owner: ObjectID, key: String)]) {
        for (owner, key) in owners {
            guard !deleted.contains(owner), !inserted.contains(owner) else { continue }
            updated.insert(owner)
            changedKeys[owner, default: []].insert(key)
        }
    }
}
