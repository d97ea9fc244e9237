import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The PostgreSQL server of the postgres section: the one MANAGEDRECORD_POSTGRES_URL names,
// else a throwaway server of Debian's programs (/usr/lib/postgresql/VERSION/bin) started in
// the demo's folder on 127.0.0.1 and stopped at the end of the section (or at exit, when a
// check stops the demo), as scripts/postgres-test-server.sh starts one for the tests.

/// Where the section's database is, and the server it started (nil: someone else's).
struct DemoPostgres {
    let url: URL
    let started: DemoPostgresServer?

    /// The server to use, or why there is none (the section is then skipped).
    @MainActor
    static func find(folder: URL) throws -> Result<DemoPostgres, Unavailable> {
        if let given = ProcessInfo.processInfo.environment["MANAGEDRECORD_POSTGRES_URL"], !given.isEmpty {
            guard let url = URL(string: given), url.scheme?.hasPrefix("postgres") == true else {
                throw DemoError("MANAGEDRECORD_POSTGRES_URL is not a postgres:// URL: \(given)")
            }
            say("the server of MANAGEDRECORD_POSTGRES_URL")
            return .success(DemoPostgres(url: url, started: nil))
        }
        guard let programs = debianPrograms() else {
            return .failure(Unavailable("MANAGEDRECORD_POSTGRES_URL is not set and PostgreSQL's server programs are not installed (no /usr/lib/postgresql/*/bin/initdb; Debian: apt-get install postgresql)"))
        }
        var owner: [String] = []
        if getuid() == 0 {                       // PostgreSQL refuses to run as root
            guard getpwnam("postgres") != nil, FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else {
                return .failure(Unavailable("running as root, with no postgres user (or no runuser) to run the server as"))
            }
            owner = ["/usr/sbin/runuser", "-u", "postgres", "--"]
        }
        // As root, the postgres user must reach the folder: the demo's, unless it lies under
        // a folder closed to others (an XDG_DATA_HOME in /root), then one in /tmp.
        let reachable = owner.isEmpty || folder.pathComponents.indices.dropFirst().allSatisfy { end in
            let path = NSString.path(withComponents: Array(folder.pathComponents[...end]))
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
            return mode & 0o001 != 0
        }
        let serverFolder = reachable ? folder.appendingPathComponent("postgres")
            : URL(fileURLWithPath: "/tmp/ManagedRecordDemo-postgres-\(UUID().uuidString.prefix(8))")
        let server = try DemoPostgresServer.start(programs: programs, owner: owner, folder: serverFolder)
        return .success(DemoPostgres(url: server.url, started: server))
    }

    /// Why the section is skipped.
    struct Unavailable: Error { let reason: String; init(_ reason: String) { self.reason = reason } }

    /// The newest Debian version's folder holding initdb and pg_ctl.
    private static func debianPrograms() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.sorted { (Int($0.prefix { $0.isNumber }) ?? 0) > (Int($1.prefix { $0.isNumber }) ?? 0) }
            .map { root.appendingPathComponent($0).appendingPathComponent("bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path)
                && FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("pg_ctl").path) }
    }
}

/// A cluster made by initdb in the demo's folder, served by pg_ctl on 127.0.0.1.
struct DemoPostgresServer: Sendable {
    let programs: URL
    let owner: [String]
    let folder: URL
    let port: Int

    var url: URL { URL(string: "postgres://managedrecord@127.0.0.1:\(port)/postgres")! }
    private var data: String { folder.appendingPathComponent("data").path }

    /// The server started and not yet stopped: stopped by `exit`, when a check stops the demo.
    nonisolated(unsafe) private static var running: DemoPostgresServer?   // set and read on the main thread

    @MainActor
    static func start(programs: URL, owner: [String], folder: URL) throws -> DemoPostgresServer {
        let sockets = folder.appendingPathComponent("sockets")
        try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if !owner.isEmpty, let user = getpwnam("postgres") {
            for path in [folder.path, sockets.path] where chown(path, user.pointee.pw_uid, user.pointee.pw_gid) != 0 {
                throw DemoError("could not give \(path) to the postgres user: \(String(cString: strerror(errno)))")
            }
        }
        let server = DemoPostgresServer(programs: programs, owner: owner, folder: folder, port: try freePort())
        say("initdb: a throwaway cluster in \(folder.path) (trust, UTF-8, C locale)")
        try server.run("initdb", ["-D", server.data, "-A", "trust", "-U", "managedrecord", "-E", "UTF8", "--locale=C", "--no-sync"])
        say("pg_ctl start: listening on 127.0.0.1:\(server.port) only")
        let options = "-c listen_addresses=127.0.0.1 -p \(server.port) -k \(sockets.path) -c fsync=off"
        running = server
        atexit { DemoPostgresServer.running?.stopQuietly() }
        try server.launchWatchdog()
        try server.run("pg_ctl", ["start", "-w", "-t", "60", "-D", server.data, "-l", folder.appendingPathComponent("server.log").path, "-o", options])
        return server
    }

    /// Stops the server and removes its folder.
    @MainActor
    func stop() throws {
        DemoPostgresServer.running = nil
        try run("pg_ctl", ["stop", "-D", data, "-m", "fast", "-w", "-t", "60"])
        try FileManager.default.removeItem(at: folder)
    }

    private func stopQuietly() {
        try? run("pg_ctl", ["stop", "-D", data, "-m", "fast", "-w", "-t", "60"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs one of the server's programs in the server's folder (as the postgres user when
    /// this is root) and waits for it; its output goes to commands.log there, which a failure
    /// quotes. Spawned and waited for with posix_spawn and waitpid, not Foundation's
    /// `Process`: `Process` learns that a child ended when the last copy of a socket it hands
    /// the child is closed, and the server `pg_ctl start` leaves running keeps its copy.
    private func run(_ program: String, _ arguments: [String]) throws {
        let log = folder.appendingPathComponent("commands.log").path
        let pid = try spawn(["/bin/sh", "-c", #"cd "$0" && exec "$@""#, folder.path] + owner + [programs.appendingPathComponent(program).path] + arguments,
                            output: log)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = status & 0x7f == 0, code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw DemoError("\(program) \(exited ? "exited with status \(code)" : "was killed by signal \(status & 0x7f)"):\n\(output.suffix(1500))")
        }
    }

    /// Stops the server if the demo is killed (a signal, Ctrl-C) before it could: a shell,
    /// deaf to INT, HUP and TERM, that waits for this process to end and then stops the
    /// server and removes its folder, unless the section did (the folder is gone).
    private func launchWatchdog() throws {
        let script = #"""
            pid=$1; folder=$2; shift 2
            trap '' INT HUP TERM
            while kill -0 "$pid" 2>/dev/null; do sleep 1; done
            if [ -d "$folder" ]; then "$@"; rm -rf "$folder"; fi
            """#
        _ = try spawn(["/bin/sh", "-c", script, "demo-postgres-watchdog", String(getpid()), folder.path]
                      + owner + [programs.appendingPathComponent("pg_ctl").path, "stop", "-D", data, "-m", "immediate", "-w", "-t", "30"],
                      output: "/dev/null")
    }

    /// Starts `command` with standard input from /dev/null and its output appended to `output`,
    /// and no other descriptor of this process: a program run under Foundation's `Process`
    /// (a test) is seen to end when the socket `Process` handed it is closed everywhere, and
    /// the server or the watchdog keeping a copy would make that never (the watchdog, waiting
    /// for the unreaped demo, would then wait forever too).
    private func spawn(_ command: [String], output: String) throws -> pid_t {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let descriptor = Int32(name), descriptor > 2 { _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv = command.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw DemoError("could not run \(command.joined(separator: " ")): \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now: bind port 0, read it, close.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw DemoError("no socket for a free port: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 ? getsockname(descriptor, $0, &length) : -1 }
        }
        guard status == 0 else { throw DemoError("no free port on 127.0.0.1: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
