import Foundation

/// The shared counters of a load test: commits, conflicts, reads, errors, and the samples
/// of WAL size and resident memory taken while it runs.
///
/// `@unchecked Sendable`: every mutable field is behind `lock`, an `NSLock` (pthread-based,
/// so ThreadSanitizer sees it; it reports `Synchronization.Mutex`'s futex as a race).
final class LoadRun: @unchecked Sendable {
    struct Figures {
        var commits = 0
        var conflicts = 0
        var reads = 0
        var maxWAL = 0
        var rssAtQuarter = 0
        var rssAtEnd = 0
    }

    struct Broken: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private let lock = NSLock()
    private var stateStorage = (figures: Figures(), failures: [String](), finished: false)
    private let walURL: URL
    private let quarter: Int

    init(walURL: URL, commitsExpected: Int = LoadTests.writers * LoadTests.commitsPerWriter) {
        self.walURL = walURL
        quarter = commitsExpected / 4
    }

    var figures: Figures { lock.withLock { stateStorage.figures } }
    var failures: [String] { lock.withLock { stateStorage.failures } }
    var isFinished: Bool { lock.withLock { stateStorage.finished } }

    func committed() {
        let reachedQuarter = lock.withLock { () -> Bool in
            stateStorage.figures.commits += 1
            return stateStorage.figures.commits == quarter
        }
        if reachedQuarter { let rss = Self.residentBytes(); lock.withLock { stateStorage.figures.rssAtQuarter = rss } }
    }

    func conflicted() { lock.withLock { stateStorage.figures.conflicts += 1 } }
    func read() { lock.withLock { stateStorage.figures.reads += 1 } }

    func finish() {
        let rss = Self.residentBytes()
        lock.withLock {
            stateStorage.finished = true
            stateStorage.figures.rssAtEnd = rss
        }
    }

    /// Runs `body`, keeping what it throws as a failure (and ending the run).
    func record(_ body: () throws -> Void) {
        do { try body() } catch { lock.withLock { stateStorage.failures.append("\(error)") } }
    }

    /// Samples the WAL's size every 5 ms until the run finishes.
    func sample() {
        while !isFinished {
            let size = (try? FileManager.default.attributesOfItem(atPath: walURL.path)[.size] as? Int) ?? 0
            lock.withLock { stateStorage.figures.maxWAL = max(stateStorage.figures.maxWAL, size) }
            usleep(5_000)
        }
    }

    /// This process's resident set size, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
