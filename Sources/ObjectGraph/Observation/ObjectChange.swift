/// What happened to one observed object (RHManagedObject's didUpdate / didDelete).
public enum ObjectChange: Sendable, Equatable {
    /// The object changed — in its context, or by another context's commit merged in; the
    /// names of the changed properties (empty when they are not known, for example after a
    /// refresh of everything).
    case updated(keys: Set<String>)
    /// The object was deleted — in its context, or by another context's commit merged in.
    /// No change follows.
    case deleted
}
