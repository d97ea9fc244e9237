import Crypto
import Foundation

/// The workload's oracle: what the store must hold, kept in plain Swift values beside the
/// library's objects. Its canonical text (and that text's SHA-256) is what the journal
/// records for each save and what the verifier compares the store against.
struct Mirror: Equatable {
    struct ItemState: Equatable {
        var amount: Int
        var bucket: String?
        var tags: Set<String>
    }

    var saveNumber = 0
    var items: [String: ItemState] = [:]
    /// Each bucket's items, in order.
    var buckets: [String: [String]] = [:]
    var tags: Set<String> = []

    var total: Int { items.values.reduce(0) { $0 + $1.amount } }

    /// One line per object, sorted: equal text means equal content.
    var canonicalText: String {
        var lines = ["ledger total=\(total) save=\(saveNumber)"]
        for (key, item) in items {
            lines.append("item \(key) amount=\(item.amount) bucket=\(item.bucket ?? "-") tags=\(item.tags.sorted().joined(separator: ","))")
        }
        for (key, members) in buckets { lines.append("bucket \(key) items=\(members.joined(separator: ","))") }
        for key in tags { lines.append("tag \(key)") }
        return lines.sorted().joined(separator: "\n")
    }

    var digest: String {
        SHA256.hash(data: Data(canonicalText.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: Changes, each keeping both sides of every relationship

    mutating func insertItem(_ key: String, amount: Int, bucket: String?, tags: Set<String>) {
        items[key] = ItemState(amount: amount, bucket: bucket, tags: tags)
        if let bucket { buckets[bucket]!.append(key) }
    }

    mutating func deleteItem(_ key: String) {
        guard let item = items.removeValue(forKey: key) else { return }
        if let bucket = item.bucket { buckets[bucket]!.removeAll { $0 == key } }
    }

    mutating func move(_ key: String, to bucket: String?) {
        if let old = items[key]!.bucket { buckets[old]!.removeAll { $0 == key } }
        items[key]!.bucket = bucket
        if let bucket { buckets[bucket]!.append(key) }
    }
}
