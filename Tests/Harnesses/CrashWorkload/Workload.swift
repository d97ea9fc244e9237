import Foundation
import ManagedRecord

/// A small deterministic random number generator (SplitMix64), so a seed repeats a run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Commits in a loop through `session`: every tenth save a batch delete of the items whose
/// amount is 0, the others one to four random changes (inserts, amount updates, deletes,
/// moves between ordered buckets, tag toggles, reorders, new buckets and tags) plus the
/// ledger's new total. Before each save the journal gets the digest of the state it leads
/// to; after it returns, `done`.
struct Workload {
    let session: Session
    let journal: Journal
    let seed: UInt64

    func run(saves limit: Int?) throws {
        try session.run {
            var next = (journal.entries().last?.number ?? -1) + 1
            var graph: Graph
            var mirror: Mirror
            if let found = try session.fetchGraph() {
                graph = found
                mirror = try Mirror(graph: found)
            } else {
                mirror = Mirror()
                journal.append("intend \(next) create \(mirror.digest)")
                graph = Graph(ledger: session.newLedger(), items: [:], buckets: [:], tags: [:])
                try session.save()
                journal.append("done \(next)")
                next += 1
            }
            var done = 0
            while limit.map({ done < $0 }) ?? true {
                var random = SplitMix(state: seed &+ UInt64(next) &* 0x2545_F491_4F6C_DD1D)
                if next % 10 == 0 {
                    try batchDelete(number: next, graph: &graph, mirror: &mirror)
                } else {
                    try change(number: next, random: &random, graph: &graph, mirror: &mirror)
                }
                next += 1
                done += 1
            }
        }
    }

    private func batchDelete(number: Int, graph: inout Graph, mirror: inout Mirror) throws {
        let doomed = mirror.items.filter { $0.value.amount == 0 }.map(\.key)
        for key in doomed { mirror.deleteItem(key) }
        journal.append("intend \(number) batch \(mirror.digest)")
        let count = try session.batchDeleteZeroAmounts()
        guard count == doomed.count else {
            throw WorkloadFailure("the batch delete removed \(count) items, \(doomed.count) have amount 0")
        }
        journal.append("done \(number)")
        for key in doomed { graph.items[key] = nil }
    }

    private func change(number: Int, random: inout SplitMix, graph: inout Graph, mirror: inout Mirror) throws {
        for _ in 0...random.below(4) {
            let itemKeys = mirror.items.keys.sorted()
            let bucketKeys = mirror.buckets.keys.sorted()
            let tagKeys = mirror.tags.sorted()
            let choice = random.below(10)
            if itemKeys.count < 4 || (choice < 3 && itemKeys.count < 300) {
                let key = "i\(number)-\(random.next() % 1_000_000)"
                let amount = random.below(4) == 0 ? 0 : 1 + random.below(99)
                let bucket = bucketKeys.isEmpty || random.below(3) == 0 ? nil : bucketKeys[random.below(bucketKeys.count)]
                let tags = Set(tagKeys.filter { _ in random.below(3) == 0 })
                guard mirror.items[key] == nil else { continue }
                mirror.insertItem(key, amount: amount, bucket: bucket, tags: tags)
                let item = session.newItem()
                item.key = key
                item.amount = amount
                if let bucket { graph.buckets[bucket]!.items.append(item) }
                for tag in tags { item.tags.insert(graph.tags[tag]!) }
                graph.items[key] = item
                continue
            }
            let key = itemKeys[random.below(itemKeys.count)]
            let item = graph.items[key]!
            switch choice {
            case 0...4:
                let amount = random.below(4) == 0 ? 0 : 1 + random.below(99)
                mirror.items[key]!.amount = amount
                item.amount = amount
            case 5:
                mirror.deleteItem(key)
                session.delete(item)
                graph.items[key] = nil
            case 6:
                let target = bucketKeys.isEmpty || random.below(4) == 0 ? nil : bucketKeys[random.below(bucketKeys.count)]
                guard target != mirror.items[key]!.bucket else { continue }
                mirror.move(key, to: target)
                if let target { graph.buckets[target]!.items.append(item) } else { item.bucket = nil }
            case 7:
                guard !tagKeys.isEmpty else { continue }
                let tag = tagKeys[random.below(tagKeys.count)]
                if mirror.items[key]!.tags.remove(tag) != nil {
                    item.tags.remove(graph.tags[tag]!)
                } else {
                    mirror.items[key]!.tags.insert(tag)
                    item.tags.insert(graph.tags[tag]!)
                }
            case 8:
                guard let bucket = bucketKeys.first(where: { mirror.buckets[$0]!.count > 1 }) else { continue }
                mirror.buckets[bucket]!.append(mirror.buckets[bucket]!.removeFirst())
                var members = graph.buckets[bucket]!.items
                members.append(members.removeFirst())
                graph.buckets[bucket]!.items = members
            default:
                if bucketKeys.count < 6 {
                    let bucket = session.newBucket()
                    bucket.key = "b\(number)-\(bucketKeys.count)"
                    mirror.buckets[bucket.key] = []
                    graph.buckets[bucket.key] = bucket
                } else if tagKeys.count < 6 {
                    let tag = session.newTag()
                    tag.key = "t\(number)-\(tagKeys.count)"
                    mirror.tags.insert(tag.key)
                    graph.tags[tag.key] = tag
                }
            }
        }
        mirror.saveNumber = number
        graph.ledger.total = mirror.total
        graph.ledger.saveNumber = number
        journal.append("intend \(number) change \(mirror.digest)")
        try session.save()
        journal.append("done \(number)")
    }
}
