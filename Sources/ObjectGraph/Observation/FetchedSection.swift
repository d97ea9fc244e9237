/// One section of ``FetchedResults``: the objects whose section key path has the same value,
/// in the request's order.
public struct FetchedSection<Result: ManagedObject> {
    /// The section key path's value as text ("" for nil; the URI of an object ID for a
    /// relationship).
    public let name: String
    public let objects: [Result]
}
