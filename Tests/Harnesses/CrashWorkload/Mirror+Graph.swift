import ManagedRecord

extension Mirror {
    /// What `graph` holds, after checking that both sides of every relationship agree and
    /// that the ledger's total is the sum of the amounts.
    init(graph: Graph) throws {
        saveNumber = graph.ledger.saveNumber
        tags = Set(graph.tags.keys)
        for (key, item) in graph.items {
            items[key] = ItemState(amount: item.amount, bucket: item.bucket?.key, tags: Set(item.tags.map(\.key)))
            if let bucket = item.bucket, !bucket.items.contains(item) {
                throw WorkloadFailure("item \(key) points at bucket \(bucket.key), whose items do not list it")
            }
            for tag in item.tags where !tag.items.contains(item) {
                throw WorkloadFailure("item \(key) has tag \(tag.key), whose items do not list it")
            }
        }
        for (key, bucket) in graph.buckets {
            let members = bucket.items.map(\.key)
            buckets[key] = members
            if Set(members).count != members.count { throw WorkloadFailure("bucket \(key) lists an item twice: \(members)") }
            for item in bucket.items where item.bucket != bucket {
                throw WorkloadFailure("bucket \(key) lists item \(item.key), which points at \(item.bucket?.key ?? "no bucket")")
            }
        }
        for (key, tag) in graph.tags {
            for item in tag.items where !item.tags.contains(tag) {
                throw WorkloadFailure("tag \(key) lists item \(item.key), whose tags do not include it")
            }
        }
        if graph.ledger.total != total {
            throw WorkloadFailure("the ledger's total is \(graph.ledger.total) but the items' amounts add up to \(total)")
        }
    }
}
