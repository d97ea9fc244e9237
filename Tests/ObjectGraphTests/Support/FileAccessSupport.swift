import Foundation
import XCTest

/// The immutable attribute (`chattr +i`): a file or folder that even root cannot change,
/// which is how tests running as root get a store they cannot write.
enum Immutable {
    static func mark(_ url: URL) throws {
        let status = try run("+i", url)
        if status != 0 { throw XCTSkip("chattr +i failed (status \(status)): the file system has no immutable attribute") }
    }

    static func clear(_ url: URL) { _ = try? run("-i", url) }

    private static func run(_ flag: String, _ url: URL) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr") else { throw XCTSkip("no /usr/bin/chattr") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, url.path]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Runs one test of this bundle again as the user `nobody`, for what permission bits do to a
/// user other than root.
enum Unprivileged {
    /// Set in the child process: the folder (writable by anyone) it works in.
    static let folderVariable = "OBJECTGRAPH_UNPRIVILEGED_FOLDER"

    /// The output of running `test` (`Module.Class/method`) as `nobody` with a folder of its
    /// own below `parent`.
    static func run(test: String, in parent: URL) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("no /usr/bin/setpriv to drop root") }
        guard let nobody = getpwnam("nobody") else { throw XCTSkip("no user nobody") }
        let folder = parent.appendingPathComponent("unprivileged", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for url in [parent, folder] { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: url.path) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(nobody.pointee.pw_uid)", "--regid=\(nobody.pointee.pw_gid)", "--clear-groups",
                             try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), test]
        var environment = ProcessInfo.processInfo.environment
        environment[folderVariable] = folder.path
        environment["TMPDIR"] = folder.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if !output.contains("Test Suite") {
            throw XCTSkip("the test bundle cannot run as nobody here (status \(process.terminationStatus)): \(output.prefix(300))")
        }
        XCTAssertEqual(process.terminationStatus, 0, output)
        return output
    }
}
