import Foundation

/// The environment variables that turn a generator's short run in `swift test` into a long
/// one: `PREFIX_NAME` for each setting (`GRAPH_GENERATOR_SEED`, `VALUE_ORACLE_SECONDS`, …).
/// Unset or unreadable, a setting keeps the short run's value. docs/reliability.md records
/// the long runs.
struct LongRunSettings {
    /// What every variable's name starts with, `GRAPH_GENERATOR_` for instance.
    let prefix: String
    private let environment = ProcessInfo.processInfo.environment

    init(prefix: String) { self.prefix = prefix }

    /// `PREFIX_name` read as a count, else `fallback`.
    func count(_ name: String, _ fallback: Int) -> Int {
        environment[prefix + name].flatMap(Int.init) ?? fallback
    }

    /// `PREFIX_SEED`, else `fallback`.
    func seed(_ fallback: UInt64) -> UInt64 {
        environment[prefix + "SEED"].flatMap(UInt64.init) ?? fallback
    }

    /// `PREFIX_SECONDS`: a long run bounded by time rather than by count; nil when not given.
    var seconds: Double? {
        environment[prefix + "SECONDS"].flatMap(Double.init)
    }

    /// `PREFIX_STORES` (`sqlite,postgres`), else every kind of store.
    var stores: Set<String> {
        environment[prefix + "STORES"].map { Set($0.split(separator: ",").map(String.init)) }
            ?? Set(StoreKind.allCases.map(\.rawValue))
    }
}
