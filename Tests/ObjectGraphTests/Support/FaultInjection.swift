import CFaultInjection
import Foundation
import XCTest

/// Makes the Nth SQLite read, write, sync or open of a test's store files fail, through the
/// wrapping VFS of `CFaultInjection` (registered as SQLite's default VFS, so every connection
/// the library opens afterwards uses it; no library hook is involved).
///
/// Only files under the tracked directory are counted and can fail. Tests run one at a time
/// in a process, so the injector's global state belongs to the running test.
enum FaultInjector {
    enum Operation: CaseIterable, CustomStringConvertible {
        case read, write, sync, open

        var raw: fi_operation {
            switch self {
            case .read: return FI_READ
            case .write: return FI_WRITE
            case .sync: return FI_SYNC
            case .open: return FI_OPEN
            }
        }

        /// The extended SQLite result code a failure of this operation reports.
        var failureCode: Int32 { fi_failure_code(raw) }

        var description: String {
            switch self {
            case .read: return "read"
            case .write: return "write"
            case .sync: return "sync"
            case .open: return "open"
            }
        }
    }

    /// Installs the VFS (once) and counts the files under `directory` from now on, disarmed.
    /// Connections opened before the first call do not go through it.
    static func track(_ directory: URL) {
        fi_install()
        fi_track(directory.path)
    }

    /// Tracks no file any more (for a test's tearDown).
    static func stopTracking() {
        fi_install()
        fi_track("")
    }

    /// The `nth` operation (1-based, from now) fails; with `persistent`, every later one too.
    static func failNth(_ operation: Operation, _ nth: Int, persistent: Bool = false) {
        fi_arm(operation.raw, nth, persistent)
    }

    static func disarm() { fi_disarm() }

    static func resetCounts() { fi_reset_counts() }

    /// Operations since the last `track`, `failNth` or `resetCounts`.
    static func count(_ operation: Operation) -> Int { fi_count(operation.raw) }

    /// Operations failed on purpose since the last `failNth`.
    static var failures: Int { fi_failures() }

    /// How many of each operation `body` performs on the tracked files (disarmed).
    static func counts(during body: () throws -> Void) rethrows -> [Operation: Int] {
        disarm()
        resetCounts()
        try body()
        return Dictionary(uniqueKeysWithValues: Operation.allCases.map { ($0, count($0)) })
    }
}

/// A store test whose files go through the fault-injecting VFS (disarmed until a test arms it).
class FaultInjectedStoreTestCase: StoreTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        FaultInjector.track(directory)
    }

    override func tearDownWithError() throws {
        FaultInjector.stopTracking()
        try super.tearDownWithError()
    }
}
