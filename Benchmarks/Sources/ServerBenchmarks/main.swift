import Foundation
import Logging

// The user's eight workloads on PostgreSQL (issue 25's server table): raw postgres-nio,
// Fluent (fluent-kit + fluent-postgres-driver) and ManagedRecord's class-level helpers, in
// one process on one server, rotated order, medians after warm-up runs; every result is
// checked against raw's.
// Usage (from Benchmarks/): . /work/postgres.env   # or eval "$(../scripts/postgres-test-server.sh start)"
//   swift run -c release ServerBenchmarks [--rows 10000] [--runs 5] [--warmup 1]
//   swift run -c release ServerBenchmarks --delete-probe    # where ManagedRecord's delete-all time goes
var rowCount = 10_000, runs = 5, warmups = 1
var args = CommandLine.arguments.dropFirst()
let deleteProbe = args.first == "--delete-probe"
if deleteProbe { args.removeFirst() }
while let arg = args.popFirst() {
    guard let value = args.popFirst().flatMap(Int.init), value > 0 else {
        fatalError("usage: ServerBenchmarks [--delete-probe] [--rows N] [--runs N] [--warmup N]; \(arg) needs a positive number")
    }
    switch arg {
    case "--rows": rowCount = value
    case "--runs": runs = value
    case "--warmup": warmups = value
    default: fatalError("unknown argument \(arg); usage: ServerBenchmarks [--delete-probe] [--rows N] [--runs N] [--warmup N]")
    }
}

let logger = Logger(label: "ServerBenchmarks")
let settings = try ServerSettings()
let serverVersion = try await settings.createSchema(logger: logger)
let loadBefore = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"

let names = ["raw", "fluent", "mr"]
let rows = makeEmployees(count: rowCount)
print("rows=\(rowCount) runs=\(runs) warmup=\(warmups) server=PostgreSQL \(serverVersion) at \(settings.host):\(settings.port); "
    + "cores=\(ProcessInfo.processInfo.activeProcessorCount) loadavg=\(loadBefore); medians; mr = ManagedRecord class-level helpers")

if deleteProbe {
    do {
        try await DeleteProbe.run(rows: rows, settings: settings, logger: logger, runs: runs, warmups: warmups)
    } catch {
        print("delete probe failed: \(error)")
    }
    ManagedRecordServerBench.tearDown()
    try await settings.dropSchemas(logger: logger)
    exit(0)
}

var samples: [String: [Workload: [Double]]] = [:]
do {
    for iteration in 0..<(warmups + runs) {
        var results: [String: RunResult] = [:]
        for k in 0..<names.count {
            let name = names[(k + iteration) % names.count]
            switch name {
            case "raw": results[name] = try await RawPostgresBench.run(rows: rows, settings: settings, logger: logger)
            case "fluent": results[name] = try await FluentBench.run(rows: rows, settings: settings, logger: logger)
            default: results[name] = try ManagedRecordServerBench.run(rows: rows, settings: settings)
            }
        }
        for name in ["fluent", "mr"] {
            for w in Workload.allCases where results[name]!.check[w] != results["raw"]!.check[w] {
                fatalError("\(name) \(w.label): \(results[name]!.check[w] ?? "nil") != raw \(results["raw"]!.check[w] ?? "nil")")
            }
        }
        guard iteration >= warmups else { continue }
        for name in names { for w in Workload.allCases { samples[name, default: [:]][w, default: []].append(results[name]!.ms[w]!) } }
    }
} catch {
    ManagedRecordServerBench.tearDown()
    try? await settings.dropSchemas(logger: logger)
    fatalError("\(error)")
}
ManagedRecordServerBench.tearDown()
try await settings.dropSchemas(logger: logger)

func cell(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }
print("workload                 raw ms  fluent ms     mr ms  mr/raw  fluent/raw  mr/fluent")
var above: [String] = []
for w in Workload.allCases {
    let raw = median(samples["raw"]![w]!), fluent = median(samples["fluent"]![w]!), mr = median(samples["mr"]![w]!)
    if mr > fluent { above.append("\(w.label) \(String(format: "%.2fx", mr / fluent))") }
    print(w.label.padding(toLength: 22, withPad: " ", startingAt: 0)
        + cell(String(format: "%.1f", raw), 9) + cell(String(format: "%.1f", fluent), 11) + cell(String(format: "%.1f", mr), 10)
        + cell(String(format: "%.2fx", mr / raw), 8) + cell(String(format: "%.2fx", fluent / raw), 12)
        + cell(String(format: "%.2fx", mr / fluent), 11))
}
print("spread (min-max ms of the \(runs) runs):")
for w in Workload.allCases {
    let text = names.map { name -> String in
        let xs = samples[name]![w]!
        return "\(name) \(String(format: "%.1f", xs.min()!))-\(String(format: "%.1f", xs.max()!))"
    }
    print("  " + w.label.padding(toLength: 22, withPad: " ", startingAt: 0) + text.joined(separator: ", "))
}
let loadAfter = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
print("loadavg at the end: \(loadAfter)")
print(above.isEmpty ? "ManagedRecord at or below Fluent in every row" : "ManagedRecord above Fluent: " + above.joined(separator: "; "))
