// What follows a read that loads objects: their `awakeFromFetch()` hooks once the read is
// over, or, when the read failed under a property access that cannot throw, a stop.
extension ManagedObjectContext {
    /// Runs `awakeFromFetch()` on the objects of `objects` that a read filled, once that read
    /// is over. A hook may touch relationships, fetch or save; inside the read it would wait
    /// for the connection (an in-memory store's reads hold the coordinator's write lock) or
    /// re-enter the row loop.
    @inline(__always)
    func awakeFetched(_ objects: some Sequence<ManagedObject>) {
        for object in objects where object.state.contains(.awaitingAwake) { awake(object) }
    }

    /// Runs `awakeFromFetch()` on an object just filled from a row. As in Core Data, values set
    /// in the hook (typically transients) are not changes: they become part of the fetched state.
    func awake(_ object: ManagedObject) {
        object.state.remove(.awaitingAwake)
        let hadChanges = object.state.contains(.updated)
        object.awakeFromFetch()
        if !hadChanges && object.state.contains(.updated) {
            object.state.remove(.updated)
            updatedSet.remove(object)
            object.snapshot = object.values
        }
    }

    /// Stops the process after a read of the store failed under a property access, which
    /// cannot throw (Core Data raises "could not fulfill a fault" there). The values are
    /// unknown: showing defaults or an empty relationship instead would let a later save write
    /// them back, so nothing changes and the process stops with what failed and what to do.
    func stopAfterFailedRead(_ what: String, _ error: any Error) -> Never {
        fatalError("""
            ManagedRecord: \(what): \(error). The store could not be read, so these values are \
            unknown; rather than show defaults or an empty relationship (which a later save would \
            write back), the process stops. Check the store file and its disk (permissions, free \
            space, I/O errors). To get such failures as thrown errors instead, load objects with \
            existingObject(with:) or fetch(_:) (relationshipKeyPathsForPrefetching for \
            relationships) before touching them.
            """)
    }
}
