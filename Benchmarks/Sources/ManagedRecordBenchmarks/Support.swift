import CSQLiteBench
import Foundation

// MARK: Options

/// Command-line options: `--objects N --runs R --warmup W --scaling 10000,100000,1000000
/// --only 1,2 --ways raw,context,helpers,grdb --no-scaling --no-memory --quick`.
struct Options {
    var objects = 100_000
    var runs = 5
    var warmup = 1
    var scaling = [10_000, 100_000, 1_000_000]
    var scalingRuns = 3
    var only: Set<Int>? = nil
    var ways: Set<String>? = nil
    var memory = true
    var mergeObjects = 10_000
    var workDirectory = FileManager.default.temporaryDirectory.path
    /// Run the user-style script (eight steps a script does, one after another) instead of the workloads.
    var script = false
    var scriptScaling: [Int] = []

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        func value(_ name: String) -> String {
            guard let next = iterator.next() else { fail("option \(name) needs a value") }
            return next
        }
        func int(_ name: String) -> Int {
            let text = value(name).replacingOccurrences(of: "_", with: "")
            guard let number = Int(text), number > 0 else { fail("option \(name) needs a positive integer, got \(text)") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--objects": options.objects = int(argument)
            case "--runs": options.runs = int(argument)
            case "--warmup": options.warmup = Int(value(argument)) ?? 1
            case "--scaling":
                options.scaling = value(argument).split(separator: ",").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
            case "--scaling-runs": options.scalingRuns = int(argument)
            case "--no-scaling": options.scaling = []
            case "--script": options.script = true
            case "--script-scaling":
                options.scriptScaling = value(argument).split(separator: ",").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
            case "--no-memory": options.memory = false
            case "--merge-objects": options.mergeObjects = int(argument)
            case "--only": options.only = Set(value(argument).split(separator: ",").compactMap { Int($0) })
            case "--ways": options.ways = Set(value(argument).split(separator: ",").map(String.init))
            case "--dir": options.workDirectory = value(argument)
            case "--wall-clock": break  // read by `now()`
            case "--quick":
                options.objects = 10_000
                options.runs = 3
                options.warmup = 1
                options.mergeObjects = 2_000
                options.scaling = [1_000, 10_000]
                options.scalingRuns = 1
            case "-h", "--help":
                print("""
                usage: swift run -c release ManagedRecordBenchmarks [options]
                  --objects N        objects per workload (default 100000)
                  --runs R           measured runs per workload and way; the median is reported (default 5)
                  --warmup W         unmeasured runs first (default 1)
                  --scaling A,B,C    object counts for the per-object cost curve (default 10000,100000,1000000)
                  --scaling-runs R   runs per point of the curve (default 3)
                  --no-scaling       skip the curve
                  --no-memory        skip the bytes-per-object measurement
                  --merge-objects N  objects changed by the background context in workload 10 (default 10000)
                  --only 1,2         run only these workloads (1...12)
                  --ways raw,context,helpers,grdb   run only these ways
                  --dir PATH         folder for the temporary stores (default: the temporary folder)
                  --wall-clock       time with the wall clock instead of the process's CPU time
                  --script           the user-style script instead: plain table for raw and GRDB,
                                     MR helpers on one context, the 8 steps in sequence (--ways raw,helpers,grdb)
                  --script-scaling A,B   with --script: per-object insert/fetch/update cost at these sizes
                  --quick            smoke run: 10k objects, 3 runs, curve at 1k and 10k
                """)
                exit(0)
            default: fail("unknown option \(argument) (try --help)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

// MARK: Time and memory

/// Measure wall-clock time instead of the process's CPU time (`--wall-clock`).
let usesWallClock = CommandLine.arguments.contains("--wall-clock")

/// Nanoseconds of CPU time used by the whole process (user + system, every thread), or of
/// wall-clock time with `--wall-clock`. CPU time is the default because the machine is
/// shared: other processes' load stretches wall-clock time but not the CPU time we use.
@inline(__always)
func now() -> UInt64 {
    var time = timespec()
    clock_gettime(usesWallClock ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// /proc/loadavg's first three numbers.
var loadAverage: String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

@inline(__always)
func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// A field of /proc/self/status in bytes (VmHWM: peak resident set, VmRSS: current).
func procStatus(_ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        let number = line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first
        return (number.flatMap { Int($0) } ?? 0) * 1024
    }
    return 0
}

func mallocInUse() -> Int { Int(bench_malloc_in_use()) }

func formatTime(_ seconds: Double) -> String {
    if seconds.isNaN { return "-" }
    if seconds >= 1 { return String(format: "%.3f s", seconds) }
    if seconds >= 0.001 { return String(format: "%.1f ms", seconds * 1e3) }
    return String(format: "%.1f µs", seconds * 1e6)
}

func formatBytes(_ bytes: Int) -> String {
    let value = Double(bytes)
    if value >= 1_073_741_824 { return String(format: "%.2f GiB", value / 1_073_741_824) }
    if value >= 1_048_576 { return String(format: "%.1f MiB", value / 1_048_576) }
    return String(format: "%.1f KiB", value / 1024)
}

// MARK: Results

/// What a workload produced, compared across the ways: every field must be equal.
struct Checksum: Equatable, CustomStringConvertible {
    var count = 0
    var ageSum = 0
    var salarySum = 0.0
    var nameBytes = 0
    var hiredSum = 0.0
    var activeCount = 0
    /// Sum of the squares of the number of employees per department: independent of keys.
    var departmentSquares = 0
    /// A workload-specific value (an average, a count of distinct names...).
    var extra = 0.0

    var description: String {
        "count=\(count) ageSum=\(ageSum) salarySum=\(salarySum) nameBytes=\(nameBytes) hiredSum=\(hiredSum) active=\(activeCount) deptSquares=\(departmentSquares) extra=\(extra)"
    }
}

/// Builds a ``Checksum`` from the rows or objects a way read.
struct ChecksumBuilder {
    var sum = Checksum()
    var perDepartment: [Int64: Int] = [:]

    mutating func add(firstName: String, lastName: String, age: Int, salary: Double, hired: Double?, department: Int64?, active: Bool) {
        sum.count += 1
        sum.ageSum += age
        sum.salarySum += salary
        sum.nameBytes += firstName.utf8.count + lastName.utf8.count
        sum.hiredSum += hired ?? 0
        if active { sum.activeCount += 1 }
        if let department { perDepartment[department, default: 0] += 1 }
    }

    var result: Checksum {
        var result = sum
        result.departmentSquares = perDepartment.values.reduce(0) { $0 + $1 * $1 }
        return result
    }
}

/// One measured run: its time and what it produced.
struct Sample {
    var seconds: Double
    var check: Checksum
}

/// A way cannot run a workload yet (the API it needs is not written).
struct Unavailable: Error {
    let reason: String
}

struct MismatchError: Error, CustomStringConvertible {
    let description: String
}
