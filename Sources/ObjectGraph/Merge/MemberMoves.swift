import Foundation
import OrderedCollections

/// What a merge must correct on the other side of to-one relationships: objects another
/// save moved to another owner (or deleted) leave the lists their old owners show here, and
/// join the new owner's.
///
/// The saving context keeps both sides in step in its own memory, so its save names the old
/// owner as it saw it. When its view was older than the store's (a conflict the merge policy
/// resolved), the owner that really held the object is not named, and a context that merged
/// the save would go on listing the object under it while the object points elsewhere. The
/// merging context knows better: what its loaded copy pointed at, or, for an object it holds
/// no loaded copy of, which of its loaded lists name it.
struct MemberMoves {
    /// A to-one of a loaded object changed: from `old` to `new` (nil: none, or deleted).
    private var known: [(member: ObjectID, inverse: RelationshipDescription, old: ObjectID?, new: ObjectID?)] = []
    /// Objects this context holds no loaded copy of: by inverse relationship, each member
    /// and its new owner (`.some(nil)`: none; nil: not known, read the store).
    private var unknown: [ObjectIdentifier: (inverse: RelationshipDescription, members: [ObjectID: ObjectID??])] = [:]

    var isEmpty: Bool { known.isEmpty && unknown.isEmpty }

    /// Notes a merged change of the object `id`: the values its loaded copy here showed
    /// before the merge (nil when it is not registered or a fault) and the slots this context
    /// changed itself, its saved values, and the keys the save changed (nil: not told).
    ///
    /// A deleted object leaves every list that names it (the loaded to-many sides of its
    /// relationships). A saved one moves between the owners of each to-one that changed,
    /// unless this context changed that to-one itself: its own change wins, and its
    /// inverses follow it.
    mutating func note(_ id: ObjectID, shown old: ContiguousArray<SlotValue>?, keeping changedHere: Set<Int> = [],
                       saved: SavedValues, changedKeys: Set<String>?) {
        for relationship in id.entity.relationships where !relationship.isTransient {
            guard let inverse = relationship.inverseRelationship else { continue }
            let new: ObjectID??
            switch saved {
            case .deleted:
                if inverse.isToMany { addUnknown(id, inverse, new: .some(nil)) }
                continue
            case .values(let values): new = .some(values[relationship.slot].objectID)
            case .unknown: new = nil
            }
            guard !relationship.isToMany, !changedHere.contains(relationship.slot) else { continue }
            if let old, !old.isEmpty, let new {
                let was = old[relationship.slot].objectID
                if was != new { known.append((id, inverse, was, new)) }
                continue
            }
            guard changedKeys?.contains(relationship.name) ?? true else { continue }
            addUnknown(id, inverse, new: new)
        }
    }

    private mutating func addUnknown(_ id: ObjectID, _ inverse: RelationshipDescription, new: ObjectID??) {
        unknown[ObjectIdentifier(inverse), default: (inverse, [:])].members[id] = new
    }

    /// Corrects the registered owners' loaded sides in `context`, in what they show and in
    /// their snapshots (the store holds it already): the moved members leave their old
    /// owners and join their new ones. Runs after the merged objects took their saved values
    /// (an owner the save named shows its list unloaded, or merged, and is left as it is).
    /// Returns the owners changed, with the relationship that changed.
    func apply(in context: ManagedObjectContext) -> [(owner: ObjectID, key: String)] {
        var touched: [(ObjectID, String)] = []
        func owner(_ id: ObjectID?) -> ManagedObject? {
            guard let id, let owner = context.registered[id],
                  !owner.isFault, !owner.isDeleted, !owner.values.isEmpty else { return nil }
            return owner
        }
        for move in known {
            if let old = owner(move.old), Self.remove(move.member, from: old, move.inverse) { touched.append((old.objectID, move.inverse.name)) }
            if let new = owner(move.new), Self.add(move.member, to: new, move.inverse) { touched.append((new.objectID, move.inverse.name)) }
        }
        guard !unknown.isEmpty else { return touched }
        for object in context.registered.objects {
            guard owner(object.objectID) != nil else { continue }
            for (inverse, members) in unknown.values where object.entity.isKind(of: inverse.entity) {
                guard let listed = object.values[inverse.slot].destinationIDs, listed.contains(where: { members[$0] != nil }) else { continue }
                var changed = false
                for member in listed {
                    guard let new = members[member] else { continue }
                    guard let new else {
                        // Where it went is not at hand: this side reads the store again.
                        guard inverse.isToMany else { continue }
                        context.reloadToMany(object, inverse)
                        changed = true
                        break
                    }
                    if new != object.objectID { changed = Self.remove(member, from: object, inverse) || changed }
                }
                if changed { touched.append((object.objectID, inverse.name)) }
            }
        }
        for (inverse, members) in unknown.values {
            for case (let member, .some(.some(let new))) in members {
                if let owner = owner(new), Self.add(member, to: owner, inverse) { touched.append((new, inverse.name)) }
            }
        }
        return touched
    }

    /// Takes `member` out of `owner`'s side `inverse` (shown and snapshot); whether it was there.
    private static func remove(_ member: ObjectID, from owner: ManagedObject, _ inverse: RelationshipDescription) -> Bool {
        let slot = inverse.slot
        func without(_ value: SlotValue) -> SlotValue? {
            switch value {
            case .object(member): return .null
            case .objects(var ids) where inverse.isToMany:
                guard ids.remove(member) != nil else { return nil }
                return .objects(ids)
            default: return nil
            }
        }
        var changed = false
        if !owner.snapshot.isEmpty, let value = without(owner.snapshot[slot]) { owner.snapshot[slot] = value; changed = true }
        if let value = without(owner.values[slot]) { show(value, in: owner, inverse); changed = true }
        return changed
    }

    /// Sets what `owner` shows in `inverse` (its snapshot already corrected): an unordered
    /// to-many back at its snapshot's members, in whatever order, takes the snapshot's value,
    /// so the owner has no change left there (seed 922022).
    private static func show(_ value: SlotValue, in owner: ManagedObject, _ inverse: RelationshipDescription) {
        guard inverse.isToMany, case .objects(let ids) = value else {
            owner.values[inverse.slot] = value
            return
        }
        owner.values[inverse.slot] = owner.toManyValue(inverse, ids)
    }

    /// Adds `member` to `owner`'s side `inverse` (at the end of a list), unless the owner
    /// already knew of it: a member this context took out itself stays out.
    private static func add(_ member: ObjectID, to owner: ManagedObject, _ inverse: RelationshipDescription) -> Bool {
        let slot = inverse.slot
        func with(_ value: SlotValue) -> SlotValue? {
            guard inverse.isToMany else { return value == .object(member) ? nil : .object(member) }
            guard case .objects(var ids) = value, !ids.contains(member) else { return nil }
            ids.append(member)
            return .objects(ids)
        }
        let known = owner.snapshot.isEmpty ? owner.values[slot] : owner.snapshot[slot]
        guard case .unloaded = known else {
            guard with(known) != nil else { return false }
            if !owner.snapshot.isEmpty, let value = with(owner.snapshot[slot]) { owner.snapshot[slot] = value }
            if let value = with(owner.values[slot]) { show(value, in: owner, inverse) }
            return true
        }
        return false
    }
}

/// A merged object's values as a save left them.
enum SavedValues {
    /// The row as written.
    case values(ContiguousArray<SlotValue>)
    /// Saved, with its values not at hand (a change set from another coordinator names IDs only).
    case unknown
    /// Deleted.
    case deleted

    var isSaved: Bool {
        if case .deleted = self { return false }
        return true
    }
}

private extension SlotValue {
    /// The objects a loaded relationship slot points at, to-one or to-many (nil: unloaded).
    var destinationIDs: OrderedSet<ObjectID>? {
        switch self {
        case .objects(let ids): ids
        case .object(let id): [id]
        case .null: []
        default: nil
        }
    }
}
