import Foundation

/// What a commit to a PostgreSQL store tells the other processes on it: a notification on
/// the store's channel (`NOTIFY`, sent inside the transaction, so it is delivered only when
/// the transaction commits) naming the objects it inserted, updated and deleted.
///
/// The payload is compact JSON: the sender (a store opening, so it ignores its own
/// commits), and for each kind a flat list of entity numbers and primary keys
/// (`{"s":"…","i":[2,41,2,42],"u":[1,7],"d":[],"e":[[3,120]]}`; `e` lists entities a batch
/// delete emptied, each with the last key it had handed out). A payload above PostgreSQL's
/// limit (8000 bytes) is replaced by `{"s":"…","all":true}`: receivers then refresh
/// everything, as after a lost connection.
struct PostgresChangeNotice {
    /// PostgreSQL refuses payloads of 8000 bytes or more.
    static let payloadLimit = 7900

    var sender: String
    var inserted: [(entity: Int64, key: Int64)] = []
    var updated: [(entity: Int64, key: Int64)] = []
    var deleted: [(entity: Int64, key: Int64)] = []
    /// Whole entities deleted up to a key (a batch delete without a predicate).
    var emptied: [(entity: Int64, maxKey: Int64)] = []
    /// Too much changed to list: refresh everything.
    var everything = false

    init(sender: String) { self.sender = sender }

    var isEmpty: Bool { !everything && inserted.isEmpty && updated.isEmpty && deleted.isEmpty && emptied.isEmpty }

    /// The payload to send: the list, or "everything" when it is too long.
    var payload: String {
        func list(_ pairs: [(Int64, Int64)]) -> String {
            var text = "["
            for (index, pair) in pairs.enumerated() {
                if index > 0 { text += "," }
                text += "\(pair.0),\(pair.1)"
            }
            return text + "]"
        }
        if !everything {
            let emptiedList = "[" + emptied.map { "[\($0.entity),\($0.maxKey)]" }.joined(separator: ",") + "]"
            let text = "{\"s\":\"\(sender)\",\"i\":\(list(inserted.map { ($0.entity, $0.key) })),\"u\":\(list(updated.map { ($0.entity, $0.key) })),\"d\":\(list(deleted.map { ($0.entity, $0.key) })),\"e\":\(emptiedList)}"
            if text.utf8.count <= Self.payloadLimit { return text }
        }
        return "{\"s\":\"\(sender)\",\"all\":true}"
    }

    /// The notice `payload` carries; nil for a payload this store did not write.
    init?(payload: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let sender = object["s"] as? String else { return nil }
        self.sender = sender
        if object["all"] != nil {
            everything = true
            return
        }
        func pairs(_ key: String) -> [(Int64, Int64)]? {
            guard let numbers = (object[key] as? [Any])?.compactMap({ ($0 as? NSNumber)?.int64Value }), numbers.count % 2 == 0 else { return nil }
            return stride(from: 0, to: numbers.count, by: 2).map { (numbers[$0], numbers[$0 + 1]) }
        }
        guard let inserted = pairs("i"), let updated = pairs("u"), let deleted = pairs("d") else { return nil }
        self.inserted = inserted.map { ($0.0, $0.1) }
        self.updated = updated.map { ($0.0, $0.1) }
        self.deleted = deleted.map { ($0.0, $0.1) }
        for item in object["e"] as? [[NSNumber]] ?? [] where item.count == 2 {
            emptied.append((item[0].int64Value, item[1].int64Value))
        }
    }
}

extension PostgresStore {
    /// Sends `notice` on the store's channel, inside the transaction of `session`.
    func notify(_ notice: PostgresChangeNotice, _ session: PostgresSession) throws {
        guard !notice.isEmpty else { return }
        try session.execute("SELECT pg_notify(?, ?)", [.text(channel), .text(notice.payload)])
    }

    /// The entity number and key of `id` (temporary IDs through `keys`).
    func noticePair(_ id: ObjectID, _ keys: TemporaryKeys = TemporaryKeys()) -> (entity: Int64, key: Int64) {
        (layout.mappings[id.entity.index].entityNumber, keys.storedKey(id))
    }

    /// The object ID of a notified pair, or nil for an entity number the model lacks.
    func objectID(_ pair: (entity: Int64, key: Int64)) -> ObjectID? {
        layout.entitiesByNumber[pair.entity].map { ObjectID(entity: $0, store: identity, primaryKey: pair.key) }
    }
}
