
/// The linked entity descriptions built for each list of classes, shared by every model
/// built from the same list.
///
/// Object IDs hold their entity without a reference count (copying an ID costs no atomic
/// operations; see docs/performance.md), so an entity must outlive every ID, and so every
/// model, that refers to it: entities live for the process. Building them once per list of
/// classes, rather than once per model, keeps that to what the program declares: a server or
/// test runner that sets up the same model a thousand times holds one set of entities, and
/// everything else a stack owns (model object, coordinator, connections, caches, contexts)
/// is released with it. IDs from an earlier stack keep their entity, name and URI.
enum EntityGraphCache {
    private static let graphs = Locked<[[ObjectIdentifier]: [EntityDescription]]>([:])

    /// The entities for `classes` (in model order, superclasses first): the ones built
    /// before for the same list, else those `build` makes, kept from now on.
    static func entities(for classes: [ManagedObject.Type], build: () throws -> [EntityDescription]) rethrows -> [EntityDescription] {
        let key = classes.map { ObjectIdentifier($0) }
        if let built = graphs.withLock({ $0[key] }) { return built }
        let entities = try build()
        return graphs.withLock { graphs in
            if let built = graphs[key] { return built }   // another thread built it meanwhile
            graphs[key] = entities
            return entities
        }
    }
}
