import Foundation
import XCTest

/// File modes, the process umask, standard error and another user, for the tests of
/// owner-only files (docs/security.md).
enum FilePermissions {
    /// The permission bits of the file or folder at `path`, or nil when it does not exist.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// `0644`.
    static func octal(_ mode: mode_t?) -> String {
        mode.map { "0" + String($0, radix: 8) } ?? "missing"
    }

    /// Runs `body` with the process umask set to `mask`, then puts the old one back.
    static func withUmask<T>(_ mask: mode_t, _ body: () throws -> T) rethrows -> T {
        let old = umask(mask)
        defer { umask(old) }
        return try body()
    }

    /// What `body` wrote to standard error (file descriptor 2), which goes to a file meanwhile.
    static func capturingStandardError(_ body: () throws -> Void) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        let descriptor = open(file.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw XCTSkip("cannot create \(file.path) to capture standard error") }
        defer { unlink(file.path) }
        fflush(nil)
        let saved = dup(2)
        dup2(descriptor, 2)
        close(descriptor)
        do {
            try body()
        } catch {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            throw error
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }

    /// The program that runs a command as another user, installed here.
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether user `nobody` (uid and gid 65534, no groups) can read the file at `path`:
    /// runs `head -c 1` as that user with `setpriv`. Nil when this process cannot switch
    /// users (not root, or no setpriv).
    static func nobodyCanRead(_ path: String) throws -> (readable: Bool, output: String)? {
        guard geteuid() == 0, let setpriv else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setpriv)
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/head", "-c", "1", path]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus == 0, message)
    }
}

/// A value several threads of a test share, behind a lock.
final class SharedValue<Value>: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
