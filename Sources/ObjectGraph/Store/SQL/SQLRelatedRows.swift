import Foundation

extension StoreLayout {
    /// Where a SQL store reads the destinations of `relationship` with their owners' keys:
    /// the `FROM` clause (the destination table `t`, joined to the join table `j` when there is
    /// one), the column holding the owner's key, and what follows the owner column in
    /// `ORDER BY` (the order column, then `orderSuffix`, when the relationship is ordered).
    /// Nil when no column names the owner.
    func relatedRowsSource(_ relationship: RelationshipDescription, orderSuffix: String) -> (from: String, ownerColumn: String, order: String)? {
        let destination = mappings[relationship.destinationEntity.index]
        var from = "\(destination.table.name) t"
        if let join = mappings[relationship.entity.index].joinTableBySlot[relationship.slot] {
            from += " JOIN \(join.name) j ON j.\(join.memberColumn) = t.Z_PK"
            return (from, "j.\(join.ownerColumn)", join.orderColumn.map { ", j.\($0)\(orderSuffix)" } ?? "")
        } else if let inverse = relationship.inverseRelationship,
                  let column = mappings[inverse.entity.index].columnBySlot[inverse.slot] {
            return (from, "t.\(column)", mappings[relationship.entity.index].orderColumnBySlot[relationship.slot].map { ", t.\($0)\(orderSuffix)" } ?? "")
        }
        return nil
    }
}
