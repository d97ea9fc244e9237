// Validation before a save writes anything: every problem found is thrown together as one
// ValidationError, and the store and the context's pending changes stay as they were.
extension ManagedObjectContext {
    /// Checks the objects a save is about to write; throws every problem together. For an
    /// update, the checks of what only a change can break (a required value made nil, a
    /// dangling reference, an unstorable value) look at its changed slots (bit tests on the
    /// save plan's masks); the model's validation rules look at every value, as Core Data's
    /// `validateForUpdate()` iterates through all of the object's properties.
    func validate(inserted: [ManagedObject], updated: [SaveRequest.Update], deleted: [ManagedObject],
                  _ layout: StoreLayout) throws {
        var problems: [ValidationError.Problem] = []
        var plans = SavePlans(layout)
        let decimals = store.decimalStorage
        for object in inserted {
            let plan = plans(object.entity)
            let required = plan.requiredSlots
            if !required.isEmpty && Self.lacksRequired(object, required, changed: nil) {
                Self.requiredProblems(object, slots: required, changed: nil, into: &problems)
            }
            if !plan.referenceSlots.isEmpty { danglingReferenceProblems(object, slots: plan.referenceSlots, into: &problems) }
            if !plan.codableSlots.isEmpty { Self.refusedValueProblems(object, slots: plan.codableSlots, into: &problems) }
            if !plan.numberSlots.isEmpty { Self.unstorableNumberProblems(object, slots: plan.numberSlots, decimals, into: &problems) }
            let entity = object.entity
            if entity.isAbstract { Self.abstractEntityProblem(object, into: &problems) }
            if !entity.validatedAttributes.isEmpty { Self.ruleProblems(object, into: &problems) }
            if !entity.countedRelationships.isEmpty { countProblems(object, into: &problems) }
            do { try object.validateForInsert() } catch { Self.record(object, error, into: &problems) }
        }
        for update in updated {
            let object = update.object
            let plan = plans(object.entity)
            // An update can only have made its changed slots nil.
            if plan.changesRequiredSlots(update.changes) && Self.lacksRequired(object, plan.requiredSlots, changed: update.changes) {
                Self.requiredProblems(object, slots: plan.requiredSlots, changed: update.changes, into: &problems)
            }
            if update.changes.intersects(plan.references) {
                danglingReferenceProblems(object, slots: update.changes.intersection(plan.references).slots, into: &problems)
            }
            if update.changes.intersects(plan.codables) {
                Self.refusedValueProblems(object, slots: update.changes.intersection(plan.codables).slots, into: &problems)
            }
            if update.changes.intersects(plan.numbers) {
                Self.unstorableNumberProblems(object, slots: update.changes.intersection(plan.numbers).slots, decimals, into: &problems)
            }
            if !object.entity.validatedAttributes.isEmpty { Self.ruleProblems(object, into: &problems) }
            if !object.entity.countedRelationships.isEmpty { countProblems(object, into: &problems) }
            do { try object.validateForUpdate() } catch { Self.record(object, error, into: &problems) }
        }
        for object in deleted {
            for relationship in object.entity.denyRelationships {
                let live = object.relatedIDs(relationship, in: self).filter { registered[$0]?.isDeleted != true }
                if !live.isEmpty {
                    problems.append(.init(object, key: relationship.name,
                                          "cannot be deleted while \(relationship.name) is not empty (deny rule; \(live.count) related)",
                                          rule: .relationshipDeniedDelete))
                }
            }
            do { try object.validateForDelete() } catch { Self.record(object, error, into: &problems) }
        }
        if !problems.isEmpty { throw ValidationError(problems: problems) }
    }

    /// Whether a required slot is nil (for an update, a changed one: only those can have become nil).
    @inline(__always)
    private static func lacksRequired(_ object: ManagedObject, _ required: [Int], changed: ChangedSlots?) -> Bool {
        object.values.withUnsafeBufferPointer { values in
            for slot in required where values[slot].isNull {
                if let changed, !changed.contains(slot) { continue }
                return true
            }
            return false
        }
    }

    private static func requiredProblems(_ object: ManagedObject, slots required: [Int], changed: ChangedSlots?,
                                         into problems: inout [ValidationError.Problem]) {
        for slot in required where object.values[slot].isNull {
            if let changed, !changed.contains(slot) { continue }
            let name = object.entity.properties[slot].name
            problems.append(.init(object, key: name, "\(name) is required but is nil", rule: .missingMandatoryProperty))
        }
    }

    /// An object of an abstract entity, created with `init(context:)` (which cannot throw):
    /// it has no table of its own to be saved as.
    private static func abstractEntityProblem(_ object: ManagedObject, into problems: inout [ValidationError.Problem]) {
        let entity = object.entity
        let concrete = entity.selfAndDescendants.filter { !$0.isAbstract }.map(\.name)
        let fix = concrete.isEmpty ? "it has no concrete sub-entity" : "insert one of its sub-entities (\(concrete.joined(separator: ", "))) instead"
        problems.append(.init(object, "\(entity.name) is abstract: objects of an abstract entity cannot be saved; \(fix), then save again",
                              rule: .abstractEntity))
    }

    /// Values that break their attribute's validation rules, changed or not.
    private static func ruleProblems(_ object: ManagedObject, into problems: inout [ValidationError.Problem]) {
        for attribute in object.entity.validatedAttributes {
            guard let validator = attribute.validator,
                  let failure = validator.failure(of: object.values[attribute.slot], key: attribute.name) else { continue }
            problems.append(.init(object, key: attribute.name, failure.message + "; set a value within the rule, then save again",
                                  rule: failure.rule, value: failure.value))
        }
    }

    /// To-many relationships holding fewer objects than their minimum count or more than their
    /// maximum. As in Core Data, an optional relationship may be empty whatever its minimum.
    /// A to-many that was never loaded is as stored, and is not read to be checked.
    private func countProblems(_ object: ManagedObject, into problems: inout [ValidationError.Problem]) {
        for relationship in object.entity.countedRelationships {
            guard case .objects(let ids) = object.values[relationship.slot] else { continue }   // unloaded: as stored
            let count = ids.reduce(0) { $0 + (registered[$1]?.isDeleted == true ? 0 : 1) }
            if count == 0 && relationship.isOptional { continue }
            let (minimum, maximum) = (relationship.fileDetails.minCount, relationship.fileDetails.maxCount ?? 0)
            let name = relationship.name
            if count < minimum {
                problems.append(.init(object, key: name, "\(name) has too few objects: \(count), the minimum count is \(minimum)",
                                      rule: .relationshipLacksMinimumCount, value: String(count)))
            } else if maximum > 0 && count > maximum {
                problems.append(.init(object, key: name, "\(name) has too many objects: \(count), the maximum count is \(maximum)",
                                      rule: .relationshipExceedsMaximumCount, value: String(count)))
            }
        }
    }

    private static func record(_ object: ManagedObject, _ error: any Error, into problems: inout [ValidationError.Problem]) {
        switch error {
        case let problem as ValidationError.Problem: problems.append(problem)
        case let error as ValidationError: problems += error.problems
        default: problems.append(.init(object, "\(error)"))
        }
    }

    /// A relationship about to be written that still holds the temporary ID of an object
    /// deleted before it was ever saved (nothing removed it: the relationship has no inverse,
    /// or the inverse's delete rule is No Action). It has no row to point at.
    private func danglingReferenceProblems(_ object: ManagedObject, slots: [Int], into problems: inout [ValidationError.Problem]) {
        for slot in slots {
            guard let lost = unsavedDestination(object.values[slot]) else { continue }
            let name = object.entity.properties[slot].name
            let fix = object.entity.relationshipAtSlot[slot]?.isToMany == true ? "remove it from \(name)" : "set \(name) to another object or nil"
            problems.append(.init(object, key: name,
                                  "\(name) points at \(lost.entity.name) \(lost), which was deleted before it was ever saved; nothing removed it "
                                    + "(no inverse, or a No Action delete rule): \(fix), then save again"))
        }
    }

    /// The first temporary ID among a relationship's destinations whose object is not
    /// inserted in this context (deleted before it was saved).
    @inline(__always)
    private func unsavedDestination(_ value: SlotValue) -> ObjectID? {
        switch value {
        case .object(let id): return id.isTemporaryID && !isInserted(id) ? id : nil
        case .objects(let ids): return ids.first { $0.isTemporaryID && !isInserted($0) }
        default: return nil
        }
    }

    private func isInserted(_ id: ObjectID) -> Bool {
        holdsUnsavedObject(id)
    }

    /// `Codable` attributes holding a value their encoder refused (see `CodableAttributeCodec`).
    private static func refusedValueProblems(_ object: ManagedObject, slots: [Int], into problems: inout [ValidationError.Problem]) {
        for slot in slots {
            guard let reason = object.values[slot].refusedEncodingReason else { continue }
            let name = object.entity.properties[slot].name
            problems.append(.init(object, key: name, "\(name) holds a value that cannot be stored: \(reason); set a value JSON can encode, then save again"))
        }
    }

    /// Double, Float, Date and Decimal attributes holding a value the store would not read
    /// back unchanged (``SlotValue/unstorableReason(decimals:)``): NaN on every store, a
    /// Decimal of more than 15 significant digits on SQLite.
    private static func unstorableNumberProblems(_ object: ManagedObject, slots: [Int], _ decimals: DecimalStorage,
                                                 into problems: inout [ValidationError.Problem]) {
        for slot in slots {
            guard let reason = object.values[slot].unstorableReason(decimals: decimals) else { continue }
            let name = object.entity.properties[slot].name
            problems.append(.init(object, key: name, "\(object.entity.name).\(name) \(reason), then save again; nothing was written"))
        }
    }
}
