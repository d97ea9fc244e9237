extension MigrationError {
    /// One entity, attribute or relationship whose values a migration would drop: the store
    /// holds them, and the model has nothing they map to.
    ///
    /// For example, a store of `Department` and `Employee` opened with a model of `Employee`
    /// alone:
    ///
    /// ```swift
    /// catch let error as MigrationError where error.code == .wouldDropData {
    ///     for item in error.droppedData { print(item) }
    ///     // Department: 3 rows
    ///     // Employee.department: 12 rows hold a value
    /// }
    /// ```
    public struct DroppedData: Sendable, Hashable, CustomStringConvertible {
        /// The entity, as the store names it.
        public let entity: String
        /// The attribute or relationship, or nil when the whole entity would be dropped. A
        /// store that does not record its model (one written by Apple's Core Data) names an
        /// attribute by its column (`ZNAME1`).
        public let property: String?
        /// The rows of the entity, or the rows (join table rows, for a many-to-many) that
        /// hold a value of the property.
        public let rowCount: Int

        /// An entity (`property` nil) or property whose values would be dropped.
        public init(entity: String, property: String?, rowCount: Int) {
            self.entity = entity
            self.property = property
            self.rowCount = rowCount
        }

        public var description: String {
            if let property { return "\(entity).\(property): \(rowCount) row\(rowCount == 1 ? "" : "s") hold\(rowCount == 1 ? "s" : "") a value" }
            return "\(entity): \(rowCount) row\(rowCount == 1 ? "" : "s")"
        }
    }
}
