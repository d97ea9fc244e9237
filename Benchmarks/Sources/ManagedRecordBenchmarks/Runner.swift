import CSQLiteBench
import Foundation

/// One workload: how its store is prepared, and what each way runs on it. Workload 10
/// reports two rows (the background commit and the merge).
struct Workload {
    enum StorePreparation {
        /// A new empty store for every run.
        case emptyPerRun
        /// One store filled with the dataset, used by every run of a way.
        case filledOnce
        /// A new filled store for every run (the workload destroys it).
        case filledPerRun
        /// One store with departments of 100 employees each, used by every run of a way.
        case traversalOnce
    }

    struct Row {
        let label: String
        /// Highest acceptable ratio of ManagedRecord to raw, or nil.
        let ratio: Double?
        /// Highest acceptable absolute time of ManagedRecord, or nil.
        let seconds: Double?
        var targetText: String {
            if let ratio { return String(format: "≤ %.1f×", ratio) }
            if let seconds { return "< \(formatTime(seconds))" }
            return "—"
        }
    }

    let number: Int
    let rows: [Row]
    let store: StorePreparation
    let run: (any Way, StoreURL) throws -> [Sample]
}

extension Workload {
    /// The row's number in the tables: the workload's, with a letter when it has several rows.
    func label(row: Int) -> String { rows.count > 1 ? "\(number)\(["a", "b"][row])" : "\(number)" }
}

/// The result of one way for one workload.
struct WayResult {
    /// Median per row, or nil when unavailable.
    var medians: [Double]?
    /// Fastest and slowest run per row, with ``medians``.
    var spreads: [(min: Double, max: Double)]?
    var reason: String?
    /// Checksums of every run (warm-up included) per row.
    var checks: [[Checksum]] = []
}

final class Runner {
    let options: Options
    let factory: StoreFactory
    let data: Dataset
    let traversalData: Dataset
    let ways: [any Way]
    let entities: EntityNumbers

    init(options: Options, factory: StoreFactory, ways: [any Way], entities: EntityNumbers) {
        self.options = options
        self.factory = factory
        self.ways = ways
        self.entities = entities
        data = Dataset(count: options.objects, departmentCount: 100)
        traversalData = Dataset(count: options.objects, departmentCount: max(1, options.objects / 100), blocks: true)
    }

    func filledStore(_ dataset: Dataset) throws -> StoreURL {
        let store = try factory.emptyStore()
        let db = try RawDatabase(path: store.path)
        try RawWay.write(dataset, to: db, entities: entities)
        return store
    }

    func run(_ workload: Workload) throws -> [WayResult] {
        var results: [WayResult] = []
        for way in ways {
            var result = WayResult(checks: Array(repeating: [], count: workload.rows.count))
            var times: [[Double]] = Array(repeating: [], count: workload.rows.count)
            var shared: StoreURL?
            switch workload.store {
            case .filledOnce: shared = try filledStore(data)
            case .traversalOnce: shared = try filledStore(traversalData)
            case .emptyPerRun, .filledPerRun: break
            }
            runs: for index in 0..<(options.warmup + options.runs) {
                let store: StoreURL
                if let shared { store = shared } else if workload.store == .emptyPerRun { store = try factory.emptyStore() } else { store = try filledStore(data) }
                defer { if shared == nil { factory.remove(store) } }
                do {
                    let samples = try workload.run(way, store)
                    for (row, sample) in samples.enumerated() {
                        result.checks[row].append(sample.check)
                        if index >= options.warmup { times[row].append(sample.seconds) }
                    }
                } catch let unavailable as Unavailable {
                    result.reason = unavailable.reason
                    break runs
                }
            }
            if let shared { factory.remove(shared) }
            if result.reason == nil {
                result.medians = times.map(median)
                result.spreads = times.map { ($0.min() ?? .nan, $0.max() ?? .nan) }
            }
            results.append(result)
            let shown = result.medians.map { $0.map(formatTime).joined(separator: " / ") } ?? "n/a (\(result.reason ?? ""))"
            log("  \(workload.number). \(way.name): \(shown)   [VmRSS \(formatBytes(procStatus("VmRSS"))), VmHWM \(formatBytes(procStatus("VmHWM")))]")
        }
        try verify(workload, results)
        return results
    }

    /// Every way that ran must have produced the same checksums, run by run.
    func verify(_ workload: Workload, _ results: [WayResult]) throws {
        let ran = zip(ways, results).filter { $0.1.medians != nil }
        guard let (referenceWay, reference) = ran.first else { return }
        for (way, result) in ran.dropFirst() {
            for row in workload.rows.indices where result.checks[row] != reference.checks[row] {
                let index = zip(result.checks[row], reference.checks[row]).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? 0
                throw MismatchError(description: """
                    RESULT MISMATCH in workload \(workload.number) (\(workload.rows[row].label)), run \(index + 1):
                      \(referenceWay.name): \(reference.checks[row].indices.contains(index) ? reference.checks[row][index].description : "-")
                      \(way.name): \(result.checks[row].indices.contains(index) ? result.checks[row][index].description : "-")
                    """)
            }
        }
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Machine facts for the report.
enum Machine {
    static var memory: String {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemTotal:") }) else { return "?" }
        let kib = Int(line.dropFirst(9).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) ?? 0
        return String(format: "%.1f GiB", Double(kib) / 1_048_576)
    }

    static var cpu: String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }) else { return "?" }
        return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
    }

    static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}
