import Foundation
import OrderedCollections

// What a merge into a context with children passes on, and what a child does with the
// temporary IDs its parent's save made permanent.
extension ManagedObjectContext {
    /// Passes the change sets this context just merged on to its children, with this
    /// context's values (an object with unsaved changes here shows them to its children);
    /// after an overflow, the children refresh everything.
    func tellChildren(merged sets: [ChangeSet], overflowed: Bool) {
        if overflowed { tellChildrenToRefreshAll() }
        var plans = SavePlans(persistentStoreCoordinator.layout)
        for set in sets {
            var told = set
            told.fromParent = true
            told.updated = set.updated.map { id, values, version in
                guard let object = registered[id], object.context === self, !object.isFault, !object.isDeleted else {
                    return (id, values, version)
                }
                let row = childRow(object, &plans)
                return (id, row.values, row.version)
            }
            tellChildren(told)
        }
    }

    /// Gives the objects a parent inserted (and this context registered under their temporary
    /// IDs) the permanent IDs the parent's save gave them, in the identity map and in every
    /// relationship that points at them.
    func adoptPermanentIDs(_ permanent: [ObjectID: ObjectID]) {
        for (temporary, id) in permanent {
            guard let object = registered[temporary] else { continue }
            registered.removeValue(forKey: temporary)
            object.objectID = id
            registered.set(object, for: id)
        }
        for object in registered.objects where !object.isFault {
            for relationship in object.entity.relationships {
                let slot = relationship.slot
                object.values[slot] = Self.remapped(object.values[slot], permanent)
                if !object.snapshot.isEmpty { object.snapshot[slot] = Self.remapped(object.snapshot[slot], permanent) }
            }
        }
    }

    private static func remapped(_ value: SlotValue, _ permanent: [ObjectID: ObjectID]) -> SlotValue {
        switch value {
        case .object(let id) where id.isTemporaryID:
            return .object(permanent[id] ?? id)
        case .objects(let ids) where ids.contains(where: \.isTemporaryID):
            return .objects(OrderedSet(ids.map { permanent[$0] ?? $0 }))
        default:
            return value
        }
    }
}
