import Foundation

extension Array where Element == ManagedObject {
    /// The objects grouped by root entity (whose table holds their rows), groups in the order
    /// of their first object, objects in their order: what a store reserves keys for, a block
    /// per table.
    func groupedByRoot() -> [(root: EntityDescription, objects: [ManagedObject])] {
        guard let first else { return [] }
        let root = first.entity.root
        if allSatisfy({ $0.entity.root === root }) { return [(root, self)] }
        var groups: [(root: EntityDescription, objects: [ManagedObject])] = []
        for object in self {
            let root = object.entity.root
            if let index = groups.firstIndex(where: { $0.root === root }) {
                groups[index].objects.append(object)
            } else {
                groups.append((root, [object]))
            }
        }
        return groups
    }
}
