import Foundation

// Small helpers so main.swift reads as a story: numbered steps, indented lines, and checks
// that stop the demo (exit 1) if the library ever does something other than what it says.

nonisolated(unsafe) private var stepNumber = 0

/// Writes a line to standard output at once (unbuffered, so the order with any crash
/// message on standard error is the real one).
func out(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func step(_ title: String) {
    stepNumber += 1
    out("\n\(stepNumber). \(title)")
}

func say(_ line: String) {
    out("   \(line)")
}

func expect(_ condition: Bool, _ what: @autoclosure () -> String, line: Int = #line) {
    if !condition {
        out("   !! expectation failed (Demo, line \(line)): \(what())")
        exit(1)
    }
}

/// A fresh folder for the demo's store: `$XDG_DATA_HOME/ManagedRecordDemo` when that
/// variable is set, else a new folder under the system's temporary directory.
func demoStoreURL() throws -> URL {
    let environment = ProcessInfo.processInfo.environment
    let folder: URL
    if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
        folder = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("ManagedRecordDemo", isDirectory: true)
        // The demo owns this folder: start from an empty store each run.
        try? FileManager.default.removeItem(at: folder)
    } else {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ManagedRecordDemo-\(UUID().uuidString.prefix(8))", isDirectory: true)
    }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("Company.sqlite")
}
