import ArgumentParser
import ObjectGraph

/// `--related-by Employee=badge` (repeatable): the attribute matching records to objects on
/// import and naming related objects on export.
struct RelatedByOptions: ParsableArguments {
    @Option(name: .customLong("related-by"), help: "ENTITY=ATTRIBUTE: the unique attribute that identifies an entity's objects (repeatable).")
    var relatedBy: [String] = []

    /// The pairs by entity name, checked against `store`'s model.
    func mapping(in store: OpenStore) throws -> [String: String] {
        var mapping: [String: String] = [:]
        for pair in relatedBy {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw CLIError("--related-by \(pair): write ENTITY=ATTRIBUTE, for example Employee=badge") }
            try store.checkKey(parts[1], of: store.entity(parts[0]))
            mapping[parts[0]] = parts[1]
        }
        return mapping
    }
}
