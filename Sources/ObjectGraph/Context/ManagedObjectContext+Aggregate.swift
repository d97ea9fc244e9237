import Foundation

// Questions the store answers without materializing objects: aggregates, distinct values and
// dictionary rows. Each is one SQL statement over the saved state of the store (as Core
// Data's dictionary results, they do not see the context's unsaved changes).
extension ManagedObjectContext {
    /// `function` over `keyPath` (an attribute, or a key path through to-one relationships)
    /// of the objects `request` selects, computed by the store in one statement, as a Double:
    /// for counts, and for attributes whose values a Double holds (integers, `Double`,
    /// `Float`, `Bool`).
    ///
    /// ```swift
    /// let mean = try context.aggregate(.average, of: "salary", for: FetchRequest<Employee>())
    /// ```
    ///
    /// - Returns: nil for `.average`, `.min` and `.max` over no objects; `.sum` and `.count`
    ///   give 0.
    /// - Throws: ``FetchPredicateError``: `unknownKey`; `typeMismatch` for `.sum`/`.average`
    ///   of a non-number, and for anything but `.count` of a Decimal, Date, String or other
    ///   attribute a Double would misstate, and for an integer result beyond 2^53, which a
    ///   Double would round (use ``aggregate(_:of:as:for:)``, as the message says);
    ///   ``StoreError`` when the store fails.
    public func aggregate<T: ManagedObject>(_ function: AggregateFunction, of keyPath: String,
                                            for request: FetchRequest<T> = FetchRequest<T>()) throws -> Double? {
        let value = try aggregateValue(function, of: keyPath, for: request) { entity, type in
            guard !AggregateResultTypes.answersAsDouble(function, of: type) else { return }
            let subject = AggregateResultTypes.subject(entity, keyPath: keyPath, type: type)
            guard let type else {
                throw FetchPredicateError(.typeMismatch, "\(function.rawValue) of \(subject) is not a number; only .count applies to it",
                                          entity: entity.name, key: keyPath)
            }
            let own = AggregateResultTypes.swiftName(type)
            throw FetchPredicateError(.typeMismatch,
                                      "\(function.rawValue) of \(subject) is a \(own), not a Double; use aggregate(.\(function.rawValue), of: \"\(keyPath)\", as: \(own).self)",
                                      entity: entity.name, key: keyPath)
        }
        switch value {
        case .int(let v):
            // Integers beyond 2^53 have no exact Double: refuse rather than round.
            guard let exact = Double(exactly: v) else {
                throw FetchPredicateError(.typeMismatch,
                                          "\(function.rawValue) of \(keyPath) is \(v), which a Double cannot hold exactly (it would read \(Double(v))); use aggregate(.\(function.rawValue), of: \"\(keyPath)\", as: Int64.self)",
                                          key: keyPath)
            }
            return exact
        case .double(let v): return v
        default: return function == .sum || function == .count ? 0 : nil
        }
    }

    /// `function` of `keyPath` as a value of the attribute's own type: `.min`/`.max` of a
    /// `Date` as a `Date`, of a `Decimal` as a `Decimal`, of an `Int16` as an `Int16` (or any
    /// wider integer). `.sum` of integers may widen to `Int`, `Double` or `Decimal`; `.average`
    /// of integers is a `Double` or `Decimal`; `.count` is an `Int`, `Double` or `Decimal`.
    /// Decimal sums and averages are exact (see `docs/fetching.md`).
    ///
    /// ```swift
    /// let latest = try context.aggregate(.max, of: "hired", as: Date.self, for: request)
    /// let total = try context.aggregate(.sum, of: "price", as: Decimal.self, for: request)
    /// ```
    ///
    /// - Returns: nil for `.average`, `.min` and `.max` over no objects; `.sum` and `.count`
    ///   give 0.
    /// - Throws: ``FetchPredicateError`` (`typeMismatch`) naming the attribute, its type and
    ///   `type` when the result cannot be read as `type`; `unknownKey`; ``StoreError``.
    public func aggregate<T: ManagedObject, V: AttributeValue>(_ function: AggregateFunction, of keyPath: String, as type: V.Type,
                                                               for request: FetchRequest<T> = FetchRequest<T>()) throws -> V? {
        var attributeType: AttributeType?
        let value = try aggregateValue(function, of: keyPath, for: request) { entity, type in
            attributeType = type
            let allowed = AggregateResultTypes.allowed(function, of: type)
            guard allowed.contains(V.attributeType) else {
                throw AggregateResultTypes.mismatch(function.rawValue, entity: entity, keyPath: keyPath, type: type, requested: "\(V.self)", allowed: allowed)
            }
        }
        if value.isNull { return function == .sum || function == .count ? V._decode(.int(0)) : nil }
        guard let result = V._decode(value) else {
            throw FetchPredicateError(.typeMismatch, "\(function.rawValue) of \(keyPath) (\(attributeType?.rawValue ?? "a relationship")) is \(value) in the store, which is not a \(V.self)",
                                      key: keyPath)
        }
        return result
    }

    /// Runs `function` over `keyPath` after `check` has accepted the attribute type the key
    /// path ends at (nil for a to-one relationship); the result in its stored form, exact for
    /// Decimals.
    func aggregateValue<T: ManagedObject>(_ function: AggregateFunction, of keyPath: String, for request: FetchRequest<T>,
                                          check: (EntityDescription, AttributeType?) throws -> Void) throws -> SlotValue {
        willAccess()
        let plan = try FetchPlan(request, self, sorted: false)
        let (path, kind) = try PredicateBinder.scalarPath(keyPath, on: plan.entity)
        if (function == .sum || function == .average) && kind != .number {
            throw FetchPredicateError(.typeMismatch, "\(function.rawValue) needs a number, but \(plan.entity.name).\(keyPath) is a \(kind)",
                                      entity: plan.entity.name, key: keyPath)
        }
        let type = path.attributeType
        try check(plan.entity, type)
        return try store.aggregate(function, of: path, kind: kind, plan.query())
    }

    /// The distinct non-nil values of `keyPath` among the objects `request` selects, in
    /// ascending order, from one `SELECT DISTINCT`.
    ///
    /// - Throws: ``FetchPredicateError`` (`typeMismatch`) when `type` cannot hold the
    ///   attribute's values (a `String` for an integer attribute, an `Int16` for an `Int`
    ///   one); `unknownKey`; ``StoreError``.
    ///
    /// ```swift
    /// let lastNames = try context.distinctValues(of: "lastName", as: String.self, for: FetchRequest<Employee>())
    /// ```
    public func distinctValues<T: ManagedObject, V: AttributeValue>(of keyPath: String, as type: V.Type,
                                                                    for request: FetchRequest<T> = FetchRequest<T>()) throws -> [V] {
        try distinctSlotValues(of: keyPath, for: request) { entity, type in
            let allowed = AggregateResultTypes.allowed(nil, of: type)
            guard allowed.contains(V.attributeType) else {
                throw AggregateResultTypes.mismatch("the distinct values", entity: entity, keyPath: keyPath, type: type, requested: "\(V.self)", allowed: allowed)
            }
        }.map { value in
            guard let decoded = V._decode(value) else {
                throw FetchPredicateError(.typeMismatch, "\(keyPath) holds \(value) in the store, which is not a \(V.self)", key: keyPath)
            }
            return decoded
        }
    }

    /// The distinct non-nil values of `keyPath`, as ``ManagedObject/value(forKey:)`` returns
    /// them (object IDs for a to-one relationship).
    public func distinctValues<T: ManagedObject>(of keyPath: String, for request: FetchRequest<T> = FetchRequest<T>()) throws -> [Any] {
        let entity = try fetchEntity(request)
        let (path, _) = try PredicateBinder.scalarPath(keyPath, on: entity)
        return try distinctSlotValues(of: keyPath, for: request) { _, _ in }.compactMap { Self.external($0, path) }
    }

    private func distinctSlotValues<T: ManagedObject>(of keyPath: String, for request: FetchRequest<T>,
                                                      check: (EntityDescription, AttributeType?) throws -> Void) throws -> [SlotValue] {
        willAccess()
        let plan = try FetchPlan(request, self, sorted: false)
        let (path, kind) = try PredicateBinder.scalarPath(keyPath, on: plan.entity)
        try check(plan.entity, path.attributeType)
        return try store.distinctValues(of: path, kind: kind,
                                                                   plan.query(limit: request.fetchLimit, offset: request.fetchOffset))
    }

    /// A stored value as key-value access shows it.
    static func external(_ value: SlotValue, _ path: BoundPath) -> Any? {
        switch path.terminal {
        case .attribute(let attribute): return attribute.conversion.toAny(value)
        default:
            if case .object(let id) = value { return id }
            return nil
        }
    }
}

extension BoundPath {
    /// The type of the attribute the path ends at; nil for a to-one relationship or `SELF`.
    var attributeType: AttributeType? {
        if case .attribute(let attribute) = terminal { return attribute.attributeType }
        return nil
    }
}
