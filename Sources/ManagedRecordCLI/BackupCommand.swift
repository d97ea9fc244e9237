import ArgumentParser
import Foundation
import ObjectGraph
import Synchronization

/// `managedrecord backup STORE COPY`: a consistent copy of a store other programs may be
/// writing (see docs/security.md, "Online backup").
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store while other programs keep using it: one consistent snapshot, owner-only (0600).",
        discussion: """
        The copy holds every save committed before the backup began and none after. It is written under a \
        temporary name, flushed to the disk, then given its name: it is complete or absent, never half-written. \
        An existing COPY is never replaced, and a COPY named as a store's -wal, -shm or -journal is refused. No model is needed. \
        SQLite files only: a PostgreSQL database is backed up with pg_dump.

        EXAMPLES:
          managedrecord backup Company.sqlite /backups/Company-2026-11-27.sqlite
        """)

    @Argument(help: "The store file (.sqlite).")
    var store: String

    @Argument(help: "The copy to write (must not exist).")
    var copy: String

    @Flag(name: .long, help: "Create the copy with the process umask instead of 0600.")
    var keepUmask = false

    func run() throws {
        try reportingErrors {
            // A COPY that exists, or is named as a store's -wal, -shm or -journal, is refused
            // by the library's backup before anything is written.
            try StoreOptions.refuseServer([store, copy], command: "backup",
                                          instead: "back a PostgreSQL database up with pg_dump (pg_dump -Fc -f company.dump postgres://user@host/company), which is consistent while programs write")
            let progress = PageProgress(verb: "copied")
            try PersistentContainer.backup(storeAt: URL(fileURLWithPath: store), to: URL(fileURLWithPath: copy),
                                           options: keepUmask ? [.keepsProcessUmask] : [], progress: progress.report)
            progress.finish()
            Terminal.write("backed up \(store) to \(copy) (\(progress.summary))\n")
        }
    }
}

/// `managedrecord restore COPY STORE`: puts a copy back, refused while the store is open.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup back in place of a store; refused while any program has the store open.",
        discussion: """
        The copy must pass SQLite's integrity check. The store's pages are replaced in one transaction: \
        interrupted, the store is as it was. A store that does not exist is written like a backup (0600). \
        Exits 1 with 'open in another process' when a program (an app, a sqlite3 shell) has the store open.

        EXAMPLES:
          managedrecord restore /backups/Company-2026-11-27.sqlite Company.sqlite
        """)

    @Argument(help: "The backup to restore from.")
    var copy: String

    @Argument(help: "The store file (.sqlite) to restore into.")
    var store: String

    func run() throws {
        try reportingErrors {
            try StoreOptions.refuseServer([copy, store], command: "restore",
                                          instead: "restore a PostgreSQL database with pg_restore from a pg_dump archive")
            let progress = PageProgress(verb: "restored")
            try PersistentContainer.restore(storeAt: URL(fileURLWithPath: store), from: URL(fileURLWithPath: copy), progress: progress.report)
            progress.finish()
            Terminal.write("restored \(store) from \(copy) (\(progress.summary))\n")
        }
    }
}

/// A ``ProgressLine`` for pages, made when the first report gives the total.
final class PageProgress: Sendable {
    let verb: String
    private let state = Mutex<(line: ProgressLine?, last: BackupProgress?)>((nil, nil))

    init(verb: String) { self.verb = verb }

    /// Shows `progress` (the handler given to backup and restore).
    @Sendable func report(_ progress: BackupProgress) {
        let line = state.withLock { state in
            if state.line == nil { state.line = ProgressLine(verb, "pages", total: progress.totalPages) }
            state.last = progress
            return state.line
        }
        line?.update(progress.completedPages)
    }

    /// The last line on a terminal.
    func finish() {
        let (line, last) = state.withLock { ($0.line, $0.last) }
        line?.finish(last?.completedPages ?? 0)
    }

    /// `1200 pages of 4096 bytes`.
    var summary: String {
        let last = state.withLock { $0.last }
        return "\(last?.totalPages ?? 0) pages of \(last?.pageSize ?? 0) bytes"
    }
}
