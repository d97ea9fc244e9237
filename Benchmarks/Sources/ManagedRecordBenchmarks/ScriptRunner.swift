import Foundation

/// Runs the user-style script (`--script`): every way does the eight steps in
/// sequence on one connection or context, on a new store per run; one warm-up run, the
/// median of `--runs` runs per step; ratios to the plain-table raw loop of the same process.
struct ScriptRunner {
    let options: Options
    let ways: [any ScriptWay]
    let directory: URL
    private var counter = 0

    init(options: Options, ways: [any ScriptWay]) throws {
        self.options = options
        self.ways = ways
        directory = URL(fileURLWithPath: options.workDirectory, isDirectory: true)
            .appendingPathComponent("managedrecord-script-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func removeAll() { try? FileManager.default.removeItem(at: directory) }

    private mutating func newFolder() throws -> URL {
        counter += 1
        let folder = directory.appendingPathComponent("run-\(counter)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Per way: the median seconds of each step, peak resident memory while it ran, bytes
    /// per fetched object (when `memory`).
    struct WayOutcome {
        var medians: [Double]
        var spread: [(Double, Double)]
        var peak: Int
        var bytesPerObject: Double?
    }

    mutating func run(_ data: Dataset, runs: Int, memory: Bool) throws -> [WayOutcome] {
        var outcomes: [WayOutcome] = []
        var reference: [[Checksum]]?
        for way in ways {
            resetPeakMemory()
            var times = Array(repeating: [Double](), count: ScriptStep.allCases.count)
            var checks = Array(repeating: [Checksum](), count: ScriptStep.allCases.count)
            for index in 0..<(options.warmup + runs) {
                let folder = try newFolder()
                defer { try? FileManager.default.removeItem(at: folder) }
                try way.open(folder)
                defer { way.close() }
                for step in ScriptStep.allCases {
                    let sample = try step.run(way, data)
                    checks[step.rawValue].append(sample.check)
                    if index >= options.warmup { times[step.rawValue].append(sample.seconds) }
                }
            }
            var bytes: Double?
            if memory {
                let folder = try newFolder()
                defer { try? FileManager.default.removeItem(at: folder) }
                try way.open(folder)
                defer { way.close() }
                _ = try way.insert(data)
                bytes = try way.bytesPerObject()
            }
            let outcome = WayOutcome(medians: times.map(median), spread: times.map { ($0.min() ?? .nan, $0.max() ?? .nan) },
                                     peak: procStatus("VmHWM"), bytesPerObject: bytes)
            log("  script \(data.employees.count): \(way.name): \(outcome.medians.map(formatTime).joined(separator: " / "))")
            if let reference {
                for step in ScriptStep.allCases where checks[step.rawValue] != reference[step.rawValue] {
                    throw MismatchError(description: """
                        RESULT MISMATCH in script step \(step.rawValue + 1) (\(step.label)):
                          \(ways[0].name): \(reference[step.rawValue])
                          \(way.name): \(checks[step.rawValue])
                        """)
                }
            } else {
                reference = checks
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Prints the script's table, memory and (with `--script-scaling`) per-object costs.
    mutating func report() throws {
        let n = options.objects
        let outcomes = try run(Dataset(count: n, departmentCount: 100), runs: options.runs, memory: options.memory)
        print("## User-style script: one context in sequence, plain table (time, ratio to raw)")
        print("")
        var header = "| # | step (\(n) rows) |"
        var rule = "|---|---|"
        for way in ways { header += " \(way.name) |"; rule += "---:|" }
        print(header + " target (MR) |")
        print(rule + "---|")
        let rawIndex = ways.firstIndex { $0.key == "raw" }
        for step in ScriptStep.allCases {
            let raw = rawIndex.map { outcomes[$0].medians[step.rawValue] }
            var line = "| \(step.rawValue + 1) | \(step.label) |"
            for (index, outcome) in outcomes.enumerated() {
                let time = outcome.medians[step.rawValue]
                line += " \(formatTime(time))"
                if let raw, index != rawIndex { line += String(format: " (%.2f×)", time / raw) }
                line += " |"
            }
            print(line + " ≤ \(String(format: "%.1f", step.target))× |")
        }
        print("")
        print("Spread across the \(options.runs) runs (min–max):")
        print("")
        for (way, outcome) in zip(ways, outcomes) {
            let text = ScriptStep.allCases.map { "\($0.rawValue + 1): \(formatTime(outcome.spread[$0.rawValue].0))–\(formatTime(outcome.spread[$0.rawValue].1))" }
            print("- \(way.name): \(text.joined(separator: ", "))")
        }
        print("")
        print("| way | bytes per fetched object | peak resident memory (VmHWM while the way ran) |")
        print("|---|---:|---:|")
        for (way, outcome) in zip(ways, outcomes) {
            print("| \(way.name) | \(outcome.bytesPerObject.map { String(format: "%.0f", $0) } ?? "-") | \(formatBytes(outcome.peak)) |")
        }
        guard !options.scriptScaling.isEmpty else { return }
        print("")
        print("## Script: per-object cost by size (median of \(options.scalingRuns) run(s) after \(options.warmup) warm-up)")
        print("")
        var scaleHeader = "| objects |"
        var scaleRule = "|---:|"
        for way in ways {
            for step in ["insert", "fetch", "update"] { scaleHeader += " \(way.key) \(step) |"; scaleRule += "---:|" }
        }
        print(scaleHeader)
        print(scaleRule)
        for size in options.scriptScaling {
            log("script scaling: \(size) rows")
            let sized = try run(Dataset(count: size, departmentCount: 100), runs: options.scalingRuns, memory: false)
            var line = "| \(size) |"
            for outcome in sized {
                for step in [ScriptStep.insert, .fetchAll, .fetchModifyCommit] {
                    line += String(format: " %.0f ns |", outcome.medians[step.rawValue] / Double(size) * 1e9)
                }
            }
            print(line)
        }
    }
}

/// Resets the process's peak resident set (VmHWM) to its current size (Linux: `5` to
/// /proc/self/clear_refs), so each way's peak is its own.
func resetPeakMemory() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}
