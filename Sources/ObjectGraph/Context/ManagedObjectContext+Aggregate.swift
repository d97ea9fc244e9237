import Foundation

extension ManagedObjectContext {
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [[String: Any]] { [] }
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject], entity: EntityDescription) throws {}
}
