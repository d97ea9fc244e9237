/// What `$property` gives on a managed object class: a reference to the property itself,
/// used in key paths such as `\Employee.$department` (an inverse) or `\Employee.$age`
/// (a typed predicate or sort key).
public struct PropertyReference<Value>: Sendable {
    let ordinal: Int32
}
