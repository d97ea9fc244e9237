import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL server this test process started on 127.0.0.1, in a temporary folder of its
/// own, with the user `managedrecord` trusted (no password) and text compared by code point
/// (the C locale, as SQLite compares it).
struct LocalPostgresServer: Sendable {
    /// The superuser `initdb` creates, whom every connection uses.
    static let user = "managedrecord"

    /// The temporary folder: `data` (the cluster), `sockets`, `server.log`.
    let folder: URL
    let port: Int
    private let pgCtl: String
    private let owner: ServerOwner

    private var dataFolder: URL { folder.appendingPathComponent("data") }
    private var logFile: URL { folder.appendingPathComponent("server.log") }

    /// The maintenance database, `postgres`, over TCP.
    var url: URL { URL(string: "postgres://\(Self.user)@127.0.0.1:\(port)/postgres")! }

    /// Makes a cluster in a new temporary folder and starts a server on a free port, as the
    /// `postgres` user when this process is root; throws with the server log's tail if it
    /// does not start. First launches a watchdog that stops the server and removes the folder
    /// if this process dies without running `stop()` (a crash, a signal).
    static func start() throws(PostgresTestServerError) -> LocalPostgresServer {
        let (initdb, pgCtl) = try PostgresPrograms.serverPrograms()
        let owner = try ServerOwner.current()
        let folder = try makeFolder(owner: owner)
        do throws(PostgresTestServerError) {
            // First, so that a process killed while the server starts leaves nothing behind.
            try launchWatchdog(folder: folder, pgCtl: pgCtl, owner: owner)
            try initializeCluster(initdb: initdb, in: folder, owner: owner)
            var attempt = 0
            while true {
                attempt += 1
                let server = LocalPostgresServer(folder: folder, port: try freePort(), pgCtl: pgCtl, owner: owner)
                do throws(PostgresTestServerError) {
                    try server.startServer()
                } catch {
                    // Another process may have taken the port between the probe and the bind.
                    if attempt < 3 && server.portWasTaken { continue }
                    throw error
                }
                return server
            }
        } catch {
            // A server that half started is stopped too.
            let (executable, arguments) = owner.command(pgCtl, ["stop", "-D", folder.path + "/data", "-m", "immediate"])
            _ = try? TimedCommand.run(executable, arguments, display: "pg_ctl stop -m immediate",
                                      directory: folder, timeout: 60)
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Stops the server (`pg_ctl stop -m fast`: open connections are ended) and removes its
    /// folder. Returns what went wrong, if anything, for the caller to print.
    func stop() -> String? {
        var problems: [String] = []
        let (executable, arguments) = owner.command(
            pgCtl, ["stop", "-D", dataFolder.path, "-m", "fast", "-w", "-t", "60"])
        do {
            let result = try TimedCommand.run(executable, arguments, display: "pg_ctl stop -m fast",
                                              directory: folder, timeout: 90)
            if result.status != 0 { problems.append("pg_ctl stop failed: \(result.diagnostics)") }
        } catch {
            problems.append("\(error)")
        }
        do {
            try FileManager.default.removeItem(at: folder)
        } catch {
            problems.append("could not remove \(folder.path): \(error)")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    // MARK: Steps

    private static func makeFolder(owner: ServerOwner) throws(PostgresTestServerError) -> URL {
        // As root the folder must be reachable by the `postgres` user: /tmp is, a private
        // TMPDIR may not be.
        let base = owner.ids == nil ? FileManager.default.temporaryDirectory.path : "/tmp"
        let name = "managedrecord-postgres-" + UUID().uuidString.prefix(8).lowercased()
        let folder = URL(fileURLWithPath: base).appendingPathComponent(name)
        let sockets = folder.appendingPathComponent("sockets")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .preparationFailed(step: "creating the folder \(folder.path)", reason: "\(error)")
        }
        if case let (uid, gid)? = owner.ids {
            for path in [folder.path, sockets.path] where chown(path, uid, gid) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: folder)
                throw .preparationFailed(step: "giving \(path) to the user postgres", reason: reason)
            }
        }
        return folder
    }

    private static func initializeCluster(initdb: String, in folder: URL,
                                          owner: ServerOwner) throws(PostgresTestServerError) {
        // --no-sync: a throwaway cluster need not be flushed to disk.
        let arguments = ["-D", folder.path + "/data", "-A", "trust", "-U", user, "-E", "UTF8",
                         "--locale=C", "--no-sync"]
        let display = "initdb " + arguments.joined(separator: " ")
        let (executable, fullArguments) = owner.command(initdb, arguments)
        let result = try TimedCommand.run(executable, fullArguments, display: display,
                                          directory: folder, timeout: 180)
        if result.status != 0 {
            throw .startFailed(command: display,
                               output: (result.standardOutput + result.standardError)
                                   .trimmingCharacters(in: .whitespacesAndNewlines),
                               logTail: "")
        }
    }

    private func startServer() throws(PostgresTestServerError) {
        try? FileManager.default.removeItem(at: logFile)
        // fsync=off only makes the tests faster: a crash of this machine may lose this
        // throwaway cluster, which nobody needs back. Never use it for data you keep.
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -k \(shellQuoted(folder.path + "/sockets"))"
            + " -c fsync=off"
        let arguments = ["start", "-w", "-t", "90", "-D", dataFolder.path, "-l", logFile.path, "-o", options]
        let display = "pg_ctl " + arguments.joined(separator: " ")
        let (executable, fullArguments) = owner.command(pgCtl, arguments)
        let result: CommandResult
        do {
            result = try TimedCommand.run(executable, fullArguments, display: display,
                                          directory: folder, leavesProcessRunning: true, timeout: 120)
        } catch {
            throw .startFailed(command: display, output: "\(error)", logTail: logTail())
        }
        if result.status != 0 {
            throw .startFailed(command: display,
                               output: (result.standardOutput + result.standardError)
                                   .trimmingCharacters(in: .whitespacesAndNewlines),
                               logTail: logTail())
        }
    }

    /// A detached shell that waits for this process to end and then, if the folder is still
    /// there (`stop()` did not run: a crash, a signal), stops the server at once (if it runs)
    /// and removes the folder.
    private static func launchWatchdog(folder: URL, pgCtl: String,
                                       owner: ServerOwner) throws(PostgresTestServerError) {
        let script = """
            pid=$1; folder=$2; shift 2
            trap '' INT HUP TERM
            while kill -0 "$pid" 2>/dev/null; do sleep 1; done
            if [ -d "$folder" ]; then "$@"; rm -rf "$folder"; fi
            """
        let (stopExecutable, stopArguments) = owner.command(
            pgCtl, ["stop", "-D", folder.path + "/data", "-m", "immediate", "-w", "-t", "30"])
        try TimedCommand.launchDetached(
            "/bin/sh",
            ["-c", script, "postgres-test-server-watchdog", String(getpid()), folder.path,
             stopExecutable] + stopArguments,
            display: "the PostgreSQL test server's watchdog", directory: folder)
    }

    /// Whether the server's log says its port was in use.
    private var portWasTaken: Bool {
        let log = logTail()
        return log.contains("Address already in use") || log.contains("could not bind")
    }

    private func logTail(lines: Int = 30) -> String {
        guard let data = FileManager.default.contents(atPath: logFile.path) else { return "" }
        return String(decoding: data, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .suffix(lines)
            .joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now: bind port 0, read it, close.
    private static func freePort() throws(PostgresTestServerError) -> Int {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else {
            throw .preparationFailed(step: "picking a free port", reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 ? getsockname(descriptor, socketAddress, &length) : -1
            }
        }
        guard status == 0 else {
            throw .preparationFailed(step: "picking a free port", reason: String(cString: strerror(errno)))
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// Whom the server runs as: this process's user, or `postgres` (through `runuser`) when this
/// process is root, which `initdb` and `postgres` refuse to run as.
struct ServerOwner: Sendable {
    /// `runuser -u postgres --`, or nothing.
    let prefix: [String]
    /// The `postgres` user's IDs when the folder must be given to it.
    let ids: (uid_t, gid_t)?

    static func current() throws(PostgresTestServerError) -> ServerOwner {
        guard geteuid() == 0 else { return ServerOwner(prefix: [], ids: nil) }
        guard let entry = getpwnam("postgres") else {
            throw .cannotRunServerAsRoot(user: "postgres", reason: "there is no such user")
        }
        guard let runuser = PostgresPrograms.systemProgram("runuser") else {
            throw .cannotRunServerAsRoot(user: "postgres", reason: "the `runuser` program (util-linux) was not found")
        }
        return ServerOwner(prefix: [runuser, "-u", "postgres", "--"],
                           ids: (entry.pointee.pw_uid, entry.pointee.pw_gid))
    }

    /// The executable and arguments that run `program` with `arguments` as the owner.
    func command(_ program: String, _ arguments: [String]) -> (String, [String]) {
        guard let first = prefix.first else { return (program, arguments) }
        return (first, Array(prefix.dropFirst()) + [program] + arguments)
    }
}
