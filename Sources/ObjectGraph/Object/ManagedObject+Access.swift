import Foundation
import OrderedCollections

// The paths every property access takes: fire the fault if needed, then index the slot.
extension ManagedObject {
    @usableFromInline
    final func primitiveValue(ordinal: Int32) -> SlotValue {
        primitiveValue(slot: entity.slotByOrdinal[Int(ordinal)])
    }

    @usableFromInline
    final func setPrimitiveValue(_ value: SlotValue, ordinal: Int32) {
        setPrimitiveValue(value, slot: entity.slotByOrdinal[Int(ordinal)])
    }

    @inline(__always)
    final func primitiveValue(slot: Int) -> SlotValue {
        prepareForAccess()
        return values[slot]
    }

    /// Every property access: the context's entry checks, then the fault if there is one.
    @inline(__always)
    final func prepareForAccess() {
        guard let reference = contextReference else {
            if state.contains(.fault) { detachedFault() }
            return
        }
        reference._withUnsafeGuaranteedRef { context in
            context.willAccess()
            if state.contains(.fault) { context.fulfillFault(self) }
        }
    }

    /// A write's entry checks: confinement and the fault, but no merge of other contexts'
    /// saves. Only reads refresh: a value written from an earlier read must meet a newer save
    /// as a conflict when it is saved, never adopt that save's version and overwrite it.
    @inline(__always)
    final func prepareForWrite() {
        guard let reference = contextReference else {
            if state.contains(.fault) { detachedFault() }
            return
        }
        reference._withUnsafeGuaranteedRef { context in
            if !context.guardian.isAllowed() { context.guardian.violation("context '\(context.name)'") }
            if state.contains(.fault) { context.fulfillFault(self) }
        }
    }

    final func setPrimitiveValue(_ value: SlotValue, slot: Int) {
        prepareForWrite()
        if values[slot] == value { return }
        guard let reference = contextReference else {
            if state.contains(.detached) { checkChangeWithoutContext(entity.properties[slot].name) }
            values[slot] = value
            return
        }
        reference._withUnsafeGuaranteedRef { context in
            if let undo = context.undoStack, !state.contains(.insertedInOpenUndoGroup) {
                undo.record(.change(self, slot: slot, old: values[slot], new: value))
            }
            values[slot] = value
            markChanged(in: context)
        }
    }

    /// The value an attribute reads as when the store holds something its Swift type cannot
    /// represent (NULL in a non-optional column, say): its default value, with a log entry.
    /// The stored value is left as it is.
    @usableFromInline
    final func fallbackValue<Value>(ordinal: Int32, _ decode: (SlotValue) -> Value?) -> Value {
        let slot = entity.slotByOrdinal[Int(ordinal)]
        let attribute = entity.attributeAtSlot[slot]
        let stored = values.indices.contains(slot) ? values[slot] : .null
        guard let make = attribute?.defaultValue, let value = decode(make()) else {
            preconditionFailure("ManagedRecord: \(entity.name).\(propertyName(ordinal: ordinal)) holds \(stored), which is not a \(Value.self)")
        }
        context?.logger.warning("\(entity.name).\(propertyName(ordinal: ordinal)) of \(objectID) holds \(stored), which is not a \(Value.self); reading its default value instead")
        return value
    }

    /// Records that the object's values differ from its snapshot.
    final func markChanged() {
        contextReference?._withUnsafeGuaranteedRef { markChanged(in: $0) }
    }

    final func markChanged(in context: ManagedObjectContext) {
        if state.contains(.inserted) || state.contains(.deleted) {
            context.noteChange(insertedOrDeleted: self)
            return
        }
        if state.contains(.updated) {
            context.noteChange(updated: self)
            return
        }
        state.insert(.updated)
        context.registerUpdate(self)
    }

    final func propertyName(ordinal: Int32) -> String {
        let names = entity.nameByOrdinal
        return Int(ordinal) < names.count ? names[Int(ordinal)] : "#\(ordinal)"
    }

    /// Slots whose current value differs from the snapshot (all persistent slots when inserted).
    final func changedSlots() -> [Int] {
        if state.contains(.fault) { return [] }
        if snapshot.isEmpty { return Array(values.indices) }
        return values.indices.filter { values[$0] != snapshot[$0] }
    }

    // MARK: Key-value access

    /// The value of the attribute or relationship `key`, as Core Data's `value(forKey:)`: an
    /// attribute's Swift value, a to-one destination object, a `Set<ManagedObject>` for a
    /// to-many, or `[ManagedObject]` for an ordered to-many. Works for objects of entities
    /// without a Swift class.
    ///
    /// ```swift
    /// print(car.value(forKey: "numberPlate") as? String ?? "-")
    /// ```
    ///
    /// A key the entity does not have is a programming error, as in Core Data (where it raises
    /// "not key value coding-compliant"): the process stops with the entity's keys. For keys
    /// that come from input (a command line, a file), use ``checkedValue(forKey:)``, which
    /// throws instead.
    public func value(forKey key: String) -> Any? {
        do {
            return try checkedValue(forKey: key)
        } catch {
            preconditionFailure("ManagedRecord: \(error). Use checkedValue(forKey:) for keys that come from input.")
        }
    }

    /// The value of the attribute or relationship `key` (see ``value(forKey:)``), or a thrown
    /// error for a key the entity does not have.
    ///
    /// - Throws: ``KeyValueError`` when the entity has no property named `key`.
    public func checkedValue(forKey key: String) throws -> Any? {
        guard let property = entity.propertiesByName[key] else { throw KeyValueError.unknownKey(key, entity: entity) }
        if let attribute = property as? AttributeDescription {
            return attribute.conversion.toAny(primitiveValue(slot: attribute.slot))
        }
        let relationship = property as! RelationshipDescription
        let objects = relatedObjects(relationship)
        switch relationship.kind {
        case .toOne: return objects.first
        case .toMany: return Set(objects)
        case .orderedToMany: return objects
        }
    }

    /// Sets the attribute or relationship `key`. An attribute takes its Swift type (nil for an
    /// optional one); a to-one takes a `ManagedObject?`; a to-many takes a `Set` or an array
    /// of `ManagedObject`s.
    ///
    /// - Throws: ``KeyValueError`` for an unknown key or a value of the wrong type; the object
    ///   is unchanged then.
    public func setValue(_ value: Any?, forKey key: String) throws {
        guard let property = entity.propertiesByName[key] else { throw KeyValueError.unknownKey(key, entity: entity) }
        if let attribute = property as? AttributeDescription {
            guard let stored = attribute.conversion.fromAny(value) else {
                throw KeyValueError.typeMismatch(key, entity: entity, expected: attribute.conversion.swiftTypeName, got: value)
            }
            setPrimitiveValue(stored, slot: attribute.slot)
            return
        }
        let relationship = property as! RelationshipDescription
        let objects: [ManagedObject]
        switch value {
        case nil where !relationship.isToMany: objects = []
        case let object as ManagedObject where !relationship.isToMany: objects = [object]
        case let set as Set<ManagedObject> where relationship.isToMany: objects = Array(set)
        case let array as [ManagedObject] where relationship.isToMany: objects = array
        case let sequence as any Sequence where relationship.isToMany:
            var collected: [ManagedObject] = []
            for element in sequence {
                guard let object = element as? ManagedObject else {
                    throw KeyValueError.typeMismatch(key, entity: entity, expected: "a collection of \(relationship.destinationEntity.name)", got: value)
                }
                collected.append(object)
            }
            objects = collected
        default:
            let expected = relationship.isToMany ? "a Set or Array of \(relationship.destinationEntity.name)" : "\(relationship.destinationEntity.name)?"
            throw KeyValueError.typeMismatch(key, entity: entity, expected: expected, got: value)
        }
        for object in objects where !object.entity.isKind(of: relationship.destinationEntity) {
            throw KeyValueError.typeMismatch(key, entity: entity, expected: relationship.destinationEntity.name, got: object)
        }
        setRelatedObjects(objects, relationship)
    }

    // MARK: Change tracking

    /// The persistent properties whose values differ from the last saved (or fetched) state,
    /// with their new values, as ``value(forKey:)`` returns them.
    public func changedValues() -> [String: Any?] {
        var result: [String: Any?] = [:]
        for slot in changedSlots() {
            let property = entity.properties[slot]
            if property.isTransient { continue }
            result[property.name] = externalValue(values[slot], property)
        }
        return result
    }

    /// The last saved (or fetched) values of `keys` (every property when nil). A new object
    /// has no saved values: the result is empty.
    public func committedValues(forKeys keys: [String]?) -> [String: Any?] {
        if state.contains(.fault), let context { context.fulfillFault(self) }
        guard !snapshot.isEmpty else { return [:] }
        var result: [String: Any?] = [:]
        let properties = keys?.compactMap { entity.propertiesByName[$0] } ?? entity.properties
        for property in properties where !property.isTransient {
            result[property.name] = externalValue(snapshot[property.slot], property)
        }
        return result
    }

    /// A stored value as key-value access shows it: relationships as their object IDs.
    private func externalValue(_ value: SlotValue, _ property: PropertyDescription) -> Any? {
        if let attribute = property as? AttributeDescription { return attribute.conversion.toAny(value) }
        switch value {
        case .object(let id): return id
        case .objects(let ids): return Array(ids)
        default: return nil
        }
    }
}
