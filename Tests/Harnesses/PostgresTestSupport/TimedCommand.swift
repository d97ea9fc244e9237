import Foundation

/// What a finished command printed, and how it exited.
struct CommandResult: Sendable {
    var status: Int32
    var standardOutput: String
    var standardError: String

    /// Standard error if the command printed any, else standard output, trimmed: the part
    /// an error message quotes.
    var diagnostics: String {
        let error = standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        return error.isEmpty ? standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) : error
    }
}

/// Runs a program with a deadline, so a hung `psql` or `pg_ctl` fails its test instead of
/// hanging the test run.
///
/// Output goes to temporary files rather than pipes: a process the command leaves running
/// (the server `pg_ctl` starts) can never hold a pipe open and stall the read.
enum TimedCommand {
    /// Runs `executable` with `arguments` (no shell), standard input from /dev/null, in
    /// `directory`, with `environment` added to this process's environment. Waits at most
    /// `timeout` seconds, then stops its process group (SIGTERM, then SIGKILL) and throws
    /// `.timedOut`. A non-zero exit is returned, not thrown. `display` names the command in
    /// errors.
    ///
    /// `leavesProcessRunning` is for a command that starts a daemon (`pg_ctl start`).
    /// Foundation's `Process` learns that a child ended when the last copy of a socket it
    /// hands the child is closed, and a daemon keeps its copy for life; such a command runs
    /// under a shell that writes its exit status to a file, which is what is waited for.
    static func run(
        _ executable: String,
        _ arguments: [String],
        display: String,
        environment: [String: String] = [:],
        directory: URL? = nil,
        leavesProcessRunning: Bool = false,
        timeout: Int
    ) throws(PostgresTestServerError) -> CommandResult {
        let scratch = FileManager.default.temporaryDirectory
        let stem = scratch.appendingPathComponent("managedrecord-command-\(UUID().uuidString)").path
        let outputFile = stem + ".out", errorFile = stem + ".err", statusFile = stem + ".status"
        defer {
            for file in [outputFile, errorFile, statusFile] { try? FileManager.default.removeItem(atPath: file) }
        }
        let process = Process()
        if leavesProcessRunning {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"status=$1; shift; "$@"; echo $? >"$status.partial" && mv "$status.partial" "$status""#,
                                 "sh", statusFile, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let directory { process.currentDirectoryURL = directory }
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            guard FileManager.default.createFile(atPath: outputFile, contents: nil),
                  FileManager.default.createFile(atPath: errorFile, contents: nil)
            else {
                throw PostgresTestServerError.launchFailed(
                    command: display, reason: "could not create its output files in \(scratch.path)")
            }
            let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
            let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
            defer {
                try? output.close()
                try? error.close()
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = error
            try process.run()
        } catch let error as PostgresTestServerError {
            throw error
        } catch {
            throw .launchFailed(command: display, reason: "\(error)")
        }

        let deadline = DispatchTime.now() + .seconds(timeout)
        let status = leavesProcessRunning
            ? waitForStatusFile(statusFile, until: deadline)
            : finished.wait(timeout: deadline) == .success ? process.terminationStatus : nil
        guard let status else {
            stop(process.processIdentifier, finished: finished)
            let printed = read(outputFile) + read(errorFile)
            throw .timedOut(command: display, seconds: timeout,
                            output: printed.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return CommandResult(status: status, standardOutput: read(outputFile), standardError: read(errorFile))
    }

    /// The status the wrapping shell wrote, once it is there; nil at the deadline.
    private static func waitForStatusFile(_ path: String, until deadline: DispatchTime) -> Int32? {
        while DispatchTime.now() < deadline {
            if let text = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }),
               let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return status
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// Ends the process group `Process` made for the command (the command and what it ran),
    /// or the process alone where there is no such group: SIGTERM, then SIGKILL.
    private static func stop(_ pid: Int32, finished: DispatchSemaphore) {
        let send = { (number: Int32) in
            if kill(-pid, number) != 0 { kill(pid, number) }
        }
        send(SIGTERM)
        if finished.wait(timeout: .now() + .seconds(5)) == .timedOut {
            send(SIGKILL)
            _ = finished.wait(timeout: .now() + .seconds(5))
        }
    }

    /// Starts `executable` detached (its own session when `setsid` exists, all three standard
    /// streams on /dev/null, so it holds no pipe of the test runner's) and does not wait for it.
    static func launchDetached(_ executable: String, _ arguments: [String], display: String,
                               directory: URL? = nil) throws(PostgresTestServerError) {
        let process = Process()
        if let setsid = ["/usr/bin/setsid", "/bin/setsid"].first(where: FileManager.default.isExecutableFile) {
            process.executableURL = URL(fileURLWithPath: setsid)
            process.arguments = [executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .launchFailed(command: display, reason: "\(error)")
        }
    }

    private static func read(_ file: String) -> String {
        guard let data = FileManager.default.contents(atPath: file) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
