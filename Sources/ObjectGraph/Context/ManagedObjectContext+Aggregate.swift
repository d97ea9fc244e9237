import Foundation

// Questions the store answers without materializing objects: aggregates, distinct values and
// dictionary rows. Each is one SQL statement over the saved state of the store (as Core
// Data's dictionary results, they do not see the context's unsaved changes).
extension ManagedObjectContext {
    /// `function` over `keyPath` (an attribute, or a key path through to-one relationships)
    /// of the objects `request` selects, computed by SQLite in one statement.
    ///
    /// ```swift
    /// let mean = try context.aggregate(.average, of: "salary", for: FetchRequest<Employee>())
    /// ```
    ///
    /// - Returns: nil for `.average`, `.min` and `.max` over no objects; `.sum` and `.count`
    ///   give 0. Dates come back as seconds since 2001-01-01 (use
    ///   ``aggregate(_:of:as:for:)`` for a `Date`).
    /// - Throws: ``FetchPredicateError`` for an unknown key, or `.sum`/`.average` of a
    ///   non-number; ``SQLiteError`` when the store fails.
    public func aggregate<T: ManagedObject>(_ function: AggregateFunction, of keyPath: String,
                                            for request: FetchRequest<T> = FetchRequest<T>()) throws -> Double? {
        let value = try aggregateValue(function, of: keyPath, for: request)
        switch value {
        case .int(let v): return Double(v)
        case .double(let v): return v
        default: return function == .sum || function == .count ? 0 : nil
        }
    }

    /// `.min` or `.max` (or any function) of `keyPath` as a value of the attribute's type:
    /// `try context.aggregate(.max, of: "hired", as: Date.self, for: request)`.
    public func aggregate<T: ManagedObject, V: AttributeValue>(_ function: AggregateFunction, of keyPath: String, as type: V.Type,
                                                               for request: FetchRequest<T> = FetchRequest<T>()) throws -> V? {
        let value = try aggregateValue(function, of: keyPath, for: request)
        if value.isNull { return function == .sum || function == .count ? V._decode(.int(0)) : nil }
        return V._decode(value)
    }

    func aggregateValue<T: ManagedObject>(_ function: AggregateFunction, of keyPath: String, for request: FetchRequest<T>) throws -> SlotValue {
        willAccess()
        let plan = try FetchPlan(request, self, sorted: false)
        let (path, kind) = try PredicateBinder.scalarPath(keyPath, on: plan.entity)
        if (function == .sum || function == .average) && kind != .number {
            throw FetchPredicateError(.typeMismatch, "\(function.rawValue) needs a number, but \(plan.entity.name).\(keyPath) is a \(kind)",
                                      entity: plan.entity.name, key: keyPath)
        }
        var compiler = PredicateSQLCompiler(layout: persistentStoreCoordinator.layout)
        let expression = compiler.expression(path)
        let sql = "SELECT \(function.sqlName)(\(expression)) FROM \(plan.mapping.table.name) t" + plan.whereClause
        var result: SlotValue = .null
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql, compiler.arguments + plan.arguments) { statement in
                // An average is a fraction whatever the attribute's type (AVG gives a REAL).
                result = function == .average
                    ? (statement.isNull(0) ? .null : .double(statement.double(0)))
                    : self.slotValue(statement, 0, kind: kind, path: path)
            }
        }
        return result
    }

    /// The distinct non-nil values of `keyPath` among the objects `request` selects, in
    /// ascending order, from one `SELECT DISTINCT`.
    ///
    /// ```swift
    /// let lastNames = try context.distinctValues(of: "lastName", as: String.self, for: FetchRequest<Employee>())
    /// ```
    public func distinctValues<T: ManagedObject, V: AttributeValue>(of keyPath: String, as type: V.Type,
                                                                    for request: FetchRequest<T> = FetchRequest<T>()) throws -> [V] {
        try distinctSlotValues(of: keyPath, for: request).compactMap { V._decode($0) }
    }

    /// The distinct non-nil values of `keyPath`, as ``ManagedObject/value(forKey:)`` returns
    /// them (object IDs for a to-one relationship).
    public func distinctValues<T: ManagedObject>(of keyPath: String, for request: FetchRequest<T> = FetchRequest<T>()) throws -> [Any] {
        let entity = try fetchEntity(request)
        let (path, _) = try PredicateBinder.scalarPath(keyPath, on: entity)
        return try distinctSlotValues(of: keyPath, for: request).compactMap { Self.external($0, path) }
    }

    private func distinctSlotValues<T: ManagedObject>(of keyPath: String, for request: FetchRequest<T>) throws -> [SlotValue] {
        willAccess()
        let plan = try FetchPlan(request, self, sorted: false)
        let (path, kind) = try PredicateBinder.scalarPath(keyPath, on: plan.entity)
        var compiler = PredicateSQLCompiler(layout: persistentStoreCoordinator.layout)
        let expression = compiler.expression(path)
        var sql = "SELECT DISTINCT \(expression) AS value FROM \(plan.mapping.table.name) t" + plan.whereClause
        sql += (plan.whereClause.isEmpty ? " WHERE " : " AND ") + "value IS NOT NULL ORDER BY value"
        var arguments = compiler.arguments + plan.arguments
        sql += Self.pagingClause(limit: request.fetchLimit, offset: request.fetchOffset, arguments: &arguments)
        var values: [SlotValue] = []
        try persistentStoreCoordinator.read { connection in
            try connection.query(sql, arguments) { statement in
                values.append(self.slotValue(statement, 0, kind: kind, path: path))
            }
        }
        return values
    }

    /// A column read as the stored form of what `path` ends at.
    func slotValue(_ statement: SQLiteStatement, _ column: Int32, kind: ValueKind, path: BoundPath?) -> SlotValue {
        if statement.isNull(column) { return .null }
        if let path {
            switch path.terminal {
            case .attribute(let attribute):
                if kind == ValueKind(attribute.attributeType) { return RowCodec.read(attribute.attributeType, statement, column) }
            case .toOne(let relationship):
                let store = persistentStoreCoordinator.store.identity
                return .object(ObjectID(entity: relationship.destinationEntity, store: store, primaryKey: statement.int64(column)))
            case .identity: break
            }
        }
        switch statement.value(column) {
        case .integer(let v): return .int(v)
        case .real(let v): return .double(v)
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        case .null: return .null
        }
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
