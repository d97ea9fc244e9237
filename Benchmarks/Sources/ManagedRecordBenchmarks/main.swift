import Foundation

// ManagedRecord benchmarks: every workload in four ways (the JSON ones in all but raw SQLite), in one process, on fresh stores.
// Run: cd Benchmarks && swift run -c release ManagedRecordBenchmarks [--objects N --runs R | --quick]

let options = Options.parse(CommandLine.arguments)
let startDate = Date()

if options.script {
    let allScriptWays: [any ScriptWay] = [ScriptRawWay(), ScriptHelpersWay(), ScriptGRDBWay()]
    do {
        var script = try ScriptRunner(options: options, ways: allScriptWays.filter { options.ways?.contains($0.key) ?? true })
        defer { script.removeAll() }
        print("# ManagedRecord benchmarks: the user-style script")
        print("")
        print("- date: \(ISO8601DateFormatter().string(from: startDate))")
        print("- machine: \(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(Machine.memory) memory, \(Machine.cpu)")
        print("- SQLite \(Machine.sqliteVersion); WAL, synchronous=NORMAL")
        print("- command: swift run -c release ManagedRecordBenchmarks \(CommandLine.arguments.dropFirst().joined(separator: " "))")
        print("- times: \(usesWallClock ? "wall-clock time" : "CPU time of the process (user + system)")")
        print("- load average at start: \(loadAverage)")
        print("- median of \(options.runs) runs after \(options.warmup) warm-up run(s); results checked equal across ways")
        print("")
        try script.report()
        print("\nLoad average at the end: \(loadAverage)")
        print("Total wall time: \(formatTime(Date().timeIntervalSince(startDate)))")
    } catch let mismatch as MismatchError {
        fail(mismatch.description)
    } catch {
        fail("\(error)")
    }
    exit(0)
}

do {
    let factory = try StoreFactory(directory: options.workDirectory)
    defer { factory.removeAll() }
    let probe = try factory.emptyStore()
    let entities = try EntityNumbers.read(probe)
    factory.remove(probe)

    let raw = RawWay(entities: entities)
    let context = ContextWay(model: factory.model)
    let grdb = GRDBWay(entities: entities)
    let allWays: [any Way] = [raw, context, ClassHelpersWay(), grdb]
    let ways = allWays.filter { options.ways?.contains($0.key) ?? true }
    let runner = Runner(options: options, factory: factory, ways: ways, entities: entities)
    let n = options.objects
    let merged = min(options.mergeObjects, n)
    let employeeJSON = try JSONWorkload.input(runner.data)

    let workloads: [Workload] = [
        Workload(number: 1, rows: [.init(label: "insert \(n) + save", ratio: 1.5, seconds: nil)], store: .emptyPerRun) {
            [try $0.insert($1, runner.data)]
        },
        Workload(number: 2, rows: [.init(label: "fetch all, read every attribute", ratio: 2, seconds: nil)], store: .filledOnce) {
            [try $0.fetchAll($1)]
        },
        Workload(number: 3, rows: [.init(label: "fetch age > 40 AND lastName BEGINSWITH 'S'", ratio: 2, seconds: nil)], store: .filledOnce) {
            [try $0.predicateFetch($1)]
        },
        Workload(number: 4, rows: [.init(label: "count with that predicate", ratio: 1.1, seconds: nil)], store: .filledOnce) {
            [try $0.predicateCount($1)]
        },
        Workload(number: 5, rows: [.init(label: "average salary", ratio: 1.1, seconds: nil)], store: .filledOnce) {
            [try $0.averageSalary($1)]
        },
        Workload(number: 6, rows: [.init(label: "distinct last names", ratio: 1.1, seconds: nil)], store: .filledOnce) {
            [try $0.distinctLastNames($1)]
        },
        Workload(number: 7, rows: [.init(label: "fetch all, change every salary, save", ratio: 2, seconds: nil)], store: .filledOnce) {
            [try $0.fetchModifySave($1)]
        },
        Workload(number: 8, rows: [.init(label: "delete all", ratio: 1.2, seconds: nil)], store: .filledPerRun) {
            [try $0.deleteAll($1)]
        },
        Workload(number: 9, rows: [.init(label: "traverse \(n / 100) departments × 100 employees", ratio: nil, seconds: nil)],
                 store: .traversalOnce) {
            [try $0.traverse($1)]
        },
        Workload(number: 10, rows: [.init(label: "background context commits \(merged) changes", ratio: nil, seconds: nil),
                                    .init(label: "main context merges them (next access)", ratio: nil, seconds: 0.050)],
                 store: .filledOnce) {
            let pair = try $0.backgroundChangeAndMerge($1, count: merged)
            return [pair.commit, pair.merge]
        },
        Workload(number: 11, rows: [.init(label: "import \(n) from JSON (departments nested, upserted by name) + save", ratio: nil, seconds: nil)],
                 store: .emptyPerRun) {
            [try $0.importJSON($1, employeeJSON)]
        },
        Workload(number: 12, rows: [.init(label: "export all to JSON (departments nested)", ratio: nil, seconds: nil)], store: .filledOnce) {
            [try $0.exportJSON($1)]
        },
    ].filter { options.only?.contains($0.number) ?? true }

    print("# ManagedRecord benchmarks")
    print("")
    print("- date: \(ISO8601DateFormatter().string(from: startDate))")
    print("- machine: \(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(Machine.memory) memory, \(Machine.cpu)")
    print("- SQLite \(Machine.sqliteVersion); stores in WAL mode, synchronous=NORMAL, a new temporary store per way")
    print("- command: swift run -c release ManagedRecordBenchmarks \(CommandLine.arguments.dropFirst().joined(separator: " "))")
    print("- times: \(usesWallClock ? "wall-clock time" : "CPU time of the process (user + system), so that other load on the machine does not count; --wall-clock for elapsed time")")
    print("- load average at start: \(loadAverage)")
    print("- \(n) objects, median of \(options.runs) runs after \(options.warmup) warm-up run(s); results checked equal across ways")
    print("")

    var table: [(Workload, [WayResult])] = []
    for workload in workloads {
        log("workload \(workload.number): \(workload.rows.map(\.label).joined(separator: "; "))")
        table.append((workload, try runner.run(workload)))
    }

    // The table.
    let rawIndex = ways.firstIndex { $0.key == "raw" }
    let contextIndex = ways.firstIndex { $0.key == "context" }
    let grdbIndex = ways.firstIndex { $0.key == "grdb" }
    var reasons: [String] = []
    func note(_ reason: String) -> String {
        if let index = reasons.firstIndex(of: reason) { return "n/a[\(index + 1)]" }
        reasons.append(reason)
        return "n/a[\(reasons.count)]"
    }
    var header = "| # | workload |"
    var rule = "|---|---|"
    for way in ways { header += " \(way.name) |"; rule += "---:|" }
    header += " target (MR) | MR target met | MR faster than GRDB |"
    rule += "---|---|---|"
    print("## Results (time, ratio to raw)")
    print("")
    print(header)
    print(rule)
    var missed: [String] = []
    for (workload, results) in table {
        for (row, spec) in workload.rows.enumerated() {
            let rawTime = rawIndex.flatMap { results[$0].medians?[row] }
            var line = "| \(workload.label(row: row)) | \(spec.label) |"
            for (index, _) in ways.enumerated() {
                if let time = results[index].medians?[row] {
                    let ratio = rawTime.map { String(format: " (%.2f×)", time / $0) } ?? ""
                    line += " \(formatTime(time))\(index == rawIndex ? "" : ratio) |"
                } else {
                    line += " \(note(results[index].reason ?? "not run")) |"
                }
            }
            let mr = contextIndex.flatMap { results[$0].medians?[row] }
            let gr = grdbIndex.flatMap { results[$0].medians?[row] }
            var met = "—"
            if let mr {
                if let limit = spec.ratio, let rawTime {
                    met = mr / rawTime <= limit ? "yes" : "**no**"
                } else if let limit = spec.seconds {
                    met = mr < limit ? "yes" : "**no**"
                }
                if met == "**no**" { missed.append("\(workload.number): \(spec.label)") }
            } else if spec.ratio != nil || spec.seconds != nil {
                met = "n/a"
            }
            var faster = "—"
            if let mr, let gr { faster = mr < gr ? "yes" : "**no** (\(String(format: "%.2f×", mr / gr)) GRDB)" }
            line += " \(spec.targetText) | \(met) | \(faster) |"
            print(line)
        }
    }
    print("")
    for (index, reason) in reasons.enumerated() { print("n/a[\(index + 1)]: \(reason)  ") }
    print("")
    print("Spread across the \(options.runs) runs (min–max):")
    print("")
    for (index, way) in ways.enumerated() {
        var ranges: [String] = []
        for (workload, results) in table {
            guard let spreads = results[index].spreads else { continue }
            for (row, spread) in spreads.enumerated() {
                ranges.append("\(workload.label(row: row)): \(formatTime(spread.min))–\(formatTime(spread.max))")
            }
        }
        if !ranges.isEmpty { print("- \(way.name): \(ranges.joined(separator: ", "))") }
    }
    if !missed.isEmpty { print("\nTargets missed by ManagedRecord (context): \(missed.joined(separator: "; "))") }
    print("\nPeak memory after the table (VmHWM): \(formatBytes(procStatus("VmHWM")))")

    // Memory per object.
    if options.memory, contextIndex != nil {
        let store = try runner.filledStore(runner.data)
        defer { factory.remove(store) }
        let mr = try context.bytesPerObject(store)
        let rawBytes = try raw.bytesPerRow(store)
        let grdbBytes = try grdb.bytesPerRecord(store)
        print("")
        print("## Memory per object (\(mr.count) employees, malloc'ed bytes incl. the result array)")
        print("")
        print("| what | bytes/object |")
        print("|---|---:|")
        print(String(format: "| MR registered object, fetched (values + snapshot) | %.0f |", mr.fetched))
        print(String(format: "| MR registered object, fault (object(with:)) | %.0f |", mr.fault))
        print(String(format: "| raw row struct | %.0f |", rawBytes))
        print(String(format: "| GRDB record | %.0f |", grdbBytes))
    }

    // Per-object cost curve.
    if !options.scaling.isEmpty, let rawIndex, let contextIndex {
        let scaledWays = [ways[rawIndex], ways[contextIndex]]
        print("")
        print("## Per-object cost by store size (median of \(options.scalingRuns) run(s), after \(options.warmup) warm-up; 1,000 employees per department)")
        print("")
        print("| objects | raw insert | MR insert | MR/raw | raw fetch | MR fetch | MR/raw |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for size in options.scaling {
            log("scaling: \(size) objects")
            // 1,000 employees per department at every size, so a flat curve means per-object cost
            // does not grow with the store (the main table uses 100 departments).
            let sized = Dataset(count: size, departmentCount: max(1, size / 1_000))
            var insert: [Double] = []
            var fetch: [Double] = []
            var checks: [Checksum] = []
            for way in scaledWays {
                var insertTimes: [Double] = []
                for index in 0..<(options.warmup + options.scalingRuns) {
                    let store = try factory.emptyStore()
                    let sample = try way.insert(store, sized)
                    factory.remove(store)
                    if index >= options.warmup { insertTimes.append(sample.seconds) }
                    checks.append(sample.check)
                }
                let store = try runner.filledStore(sized)
                var fetchTimes: [Double] = []
                for index in 0..<(options.warmup + options.scalingRuns) {
                    let sample = try way.fetchAll(store)
                    if index >= options.warmup { fetchTimes.append(sample.seconds) }
                }
                factory.remove(store)
                insert.append(median(insertTimes) / Double(size) * 1e9)
                fetch.append(median(fetchTimes) / Double(size) * 1e9)
            }
            guard Set(checks.map(\.description)).count == 1 else {
                throw MismatchError(description: "RESULT MISMATCH in the scaling insert at \(size) objects: \(checks)")
            }
            print(String(format: "| %d | %.0f ns | %.0f ns | %.2f× | %.0f ns | %.0f ns | %.2f× |",
                         size, insert[0], insert[1], insert[1] / insert[0], fetch[0], fetch[1], fetch[1] / fetch[0]))
        }
    }
    print("\nLoad average at the end: \(loadAverage)")
    print("\nPeak memory of the whole run (VmHWM): \(formatBytes(procStatus("VmHWM")))")
    print("Total wall time: \(formatTime(Date().timeIntervalSince(startDate)))")
} catch let mismatch as MismatchError {
    fail(mismatch.description)
} catch {
    fail("\(error)")
}
