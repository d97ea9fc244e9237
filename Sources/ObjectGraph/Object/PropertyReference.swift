/// What `$property` gives on a managed object class: a reference to the property itself,
/// used in key paths such as `\Employee.$department` (an inverse) or `\Employee.$age`
/// (a typed predicate or sort key).
public struct PropertyReference<Value>: Sendable {
    @usableFromInline let ordinal: Int32

    @usableFromInline init(ordinal: Int32) { self.ordinal = ordinal }
}
