import Foundation

/// Starts this executable with `arguments` (quiet, no backtraces) and sends it SIGKILL after
/// `delayMilliseconds` unless it finished first. Returns whether it was killed.
///
/// - Throws: ``WorkloadFailure`` when the child finished first with a failing status
///   (`role` names it: "the migrating child").
func runAndKill(_ arguments: [String], afterMilliseconds delayMilliseconds: Int, role: String) throws -> Bool {
    let child = try startChild(arguments)
    usleep(UInt32(1_000 * delayMilliseconds))
    if child.isRunning {
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        return true
    }
    child.waitUntilExit()
    guard child.terminationStatus == 0 else { throw WorkloadFailure("\(role) failed with status \(child.terminationStatus)") }
    return false
}

/// Starts this executable with `arguments`, quiet and without backtraces.
func startChild(_ arguments: [String]) throws -> Process {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_BACKTRACE"] = "enable=no"
    child.environment = environment
    child.standardOutput = FileHandle.nullDevice
    try child.run()
    return child
}
