import Foundation

// Small helpers so main.swift reads as a story: numbered steps, indented lines, and checks
// that stop the demo (exit 1) if the library ever does something other than what it says.

nonisolated(unsafe) private var stepNumber = 0   // steps are counted on the main thread only
/// While true (a section run first for its store), nothing is printed; checks still run.
nonisolated(unsafe) var narrationMuted = false     // set on the main thread between sections, while no other thread runs

/// Writes a line to standard output at once (unbuffered, so the order with any crash
/// message on standard error is the real one).
func out(_ line: String) {
    if narrationMuted { return }
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
