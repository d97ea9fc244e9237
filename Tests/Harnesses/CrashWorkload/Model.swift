import ManagedRecord

// The crash workload's model: a ledger whose total must equal the sum of the items'
// amounts (an invariant every save keeps), items in ordered buckets (to-one with an ordered
// to-many inverse) and tags (many-to-many).

final class Ledger: ManagedObject {
    @Attribute var total: Int = 0
    /// The number of the last save that changed the ledger (the workload's save counter).
    @Attribute var saveNumber: Int = 0
}

final class Item: ManagedObject {
    @Attribute var key: String = ""
    @Attribute var amount: Int = 0
    @Relationship var bucket: Bucket?
    @Relationship(inverse: \Tag.$items) var tags: Set<Tag>
}

final class Bucket: ManagedObject {
    @Attribute var key: String = ""
    @Relationship(ordered: true, inverse: \Item.$bucket, deleteRule: .nullify) var items: [Item]
}

final class Tag: ManagedObject {
    @Attribute var key: String = ""
    @Relationship var items: Set<Item>
}

let workloadEntities: [ManagedObject.Type] = [Ledger.self, Item.self, Bucket.self, Tag.self]
