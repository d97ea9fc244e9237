import ArgumentParser
import Foundation
import ObjectGraph

/// `managedrecord watch STORE Employee "age > 40"`: the matching objects, then each change
/// other processes commit, until interrupted.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the objects that match a predicate, then each change as other processes commit, until interrupted.",
        discussion: """
        The store must record persistent history (`managedrecord history STORE --enable` once): its commits are read \
        from it within about a tenth of a second. Each change is a line: + for an object that now matches, ~ for one \
        that changed, - for one that no longer matches (deleted, or changed so that it does not).

        EXAMPLES:
          managedrecord watch Company.sqlite Employee "age > 40"
        """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var query: QueryOptions

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            guard opened.container.recordsHistory else {
                throw CLIError("the store records no persistent history, so other processes' commits cannot be heard; run `managedrecord history \(store.display) --enable` once, and open it with options: [.persistentHistory] from your app")
            }
            let entity = try opened.entity(query.entity)
            let results = try FetchedResults(try query.request(in: opened), context: opened.context)
            let columns = entity.storedAttributeNames
            let rows = results.objects.map { object -> [String: Any] in
                Dictionary(uniqueKeysWithValues: columns.compactMap { key in Self.jsonReady(object.value(forKey: key)).map { (key, $0) } })
            }
            RowPrinter(columns: columns).print(rows, as: .table)
            var shown = Dictionary(uniqueKeysWithValues: results.objects.map { ($0.objectID, Self.describe($0, columns)) })
            results.onChange { [unowned results] _ in
                var now: [ObjectID: String] = [:]
                var text = ""
                for object in results.objects {
                    let line = Self.describe(object, columns)
                    now[object.objectID] = line
                    if let before = shown[object.objectID] {
                        if before != line { text += "~ \(line)\n" }
                    } else {
                        text += "+ \(line)\n"
                    }
                }
                for (id, line) in shown where now[id] == nil { text += "- \(line)\n" }
                shown = now
                Terminal.write(text)
            }
            // The results merge on the main queue; run it until interrupted.
            withExtendedLifetime(results) { dispatchMain() }
        }
    }

    /// `Employee p12 firstName=Ann age=41`.
    static func describe(_ object: ManagedObject, _ columns: [String]) -> String {
        let values = columns.map { "\($0)=\(RowPrinter.text(jsonReady(object.value(forKey: $0)), null: "NULL"))" }
        return "\(object.objectID.entityName) p\(object.objectID.primaryKey ?? 0) " + values.joined(separator: " ")
    }

    /// A value as the row printer takes it.
    static func jsonReady(_ value: Any?) -> Any? {
        switch value {
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let data as Data: return data.base64EncodedString()
        case let number as Float: return Double(number)
        case let number as Int16: return Int(number)
        case let number as Int32: return Int(number)
        case let number as Int64: return Int(number)
        default: return value
        }
    }
}
