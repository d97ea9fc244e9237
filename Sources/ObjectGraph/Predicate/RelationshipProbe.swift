import CObjectGraphRuntime

/// Answers the relationship reads of one probe object — an object of no context that a key
/// path is read on to learn which stored property it names (`FoundationPredicate+KeyPaths`) —
/// with marker objects, one set per relationship slot. A key path that returns exactly the
/// markers of one slot names that relationship; a computed property that goes further
/// (`mother?.mother`) or elsewhere returns something else and is refused.
///
/// Installed for the calling thread only, while `read` runs; relationship getters of objects
/// without a context ask it (`ManagedObject+Relationships`), and it answers nothing for any
/// object but its probe.
final class RelationshipProbe {
    private let object: ManagedObject
    private let markers: [Int: [ManagedObject]]

    init(object: ManagedObject, markers: [Int: [ManagedObject]]) {
        self.object = object
        self.markers = markers
    }

    /// What `keyPath` returns on the probe object while this probe answers its reads.
    func read(_ keyPath: AnyKeyPath) -> Any? {
        let thread = og_thread()
        let previous = thread.pointee.relationship_probe
        // Unretained: `read` keeps the probe alive until it takes it out again.
        thread.pointee.relationship_probe = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        defer { thread.pointee.relationship_probe = previous }
        return withExtendedLifetime(self) { object[keyPath: keyPath] }
    }

    /// The markers for `slot` of `reader` when a probe on this thread answers for it; nil
    /// otherwise (an object without a context then reads no destinations).
    static func answer(_ reader: ManagedObject, slot: Int) -> [ManagedObject]? {
        guard let probe = og_thread().pointee.relationship_probe else { return nil }
        let installed = Unmanaged<RelationshipProbe>.fromOpaque(probe).takeUnretainedValue()
        return installed.object === reader ? installed.markers[slot] ?? [] : nil
    }
}
