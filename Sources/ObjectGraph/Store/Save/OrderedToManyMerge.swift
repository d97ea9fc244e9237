import Foundation

/// An ordered to-many relationship as a save writes it: the saving context's list, followed by
/// the members the store holds that this context never knew of — appended by another context
/// (or process) since this one read the relationship. Writing only the context's own list
/// would give two members one position (a one-to-many, where membership lives in the
/// destinations' rows), or delete the other context's member (a many-to-many, whose join rows
/// are rewritten), so the stored order would be undefined or a member lost.
enum OrderedToManyMerge {
    /// `now` (the context's list), then the `stored` members (in stored order) that are in
    /// neither `now` nor `before` (the list the context read: members it removed stay removed).
    static func keys(now: [Int64], before: [Int64], stored: [Int64]) -> [Int64] {
        let known = Set(now).union(before)
        return now + stored.filter { !known.contains($0) }
    }
}

extension StoreLayout {
    /// The SQL (one `?`, the owner's key) that reads the keys of `relationship`'s members as
    /// stored, in the order readers see (`orderSuffix` as for ``relatedRowsSource(_:orderSuffix:)``);
    /// nil when no column names the owner.
    func storedMembersSQL(_ relationship: RelationshipDescription, orderSuffix: String) -> String? {
        guard let source = relatedRowsSource(relationship, orderSuffix: orderSuffix) else { return nil }
        return "SELECT t.Z_PK FROM \(source.from) WHERE \(source.ownerColumn) = ? ORDER BY \(source.ownerColumn)\(source.order)"
    }
}
