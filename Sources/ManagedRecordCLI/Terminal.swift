import Foundation

/// Standard output and error, and whether a person is watching (progress goes to a terminal
/// only, never into a pipe or a file).
enum Terminal {
    /// Writes `text` to standard output as it is.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func write(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    /// A line on standard error, prefixed with the tool's name.
    static func error(_ message: String) {
        clearProgress()
        FileHandle.standardError.write(Data("managedrecord: error: \(message)\n".utf8))
    }

    /// A warning on standard error, prefixed with the tool's name; the command goes on.
    static func warning(_ message: String) {
        clearProgress()
        FileHandle.standardError.write(Data("managedrecord: warning: \(message)\n".utf8))
    }

    /// Whether standard input is a terminal: someone who can answer a question.
    static var inputIsATerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard error is a terminal.
    static var showsProgress: Bool { isatty(STDERR_FILENO) == 1 }

    /// A progress line on standard error, rewritten in place; nothing when not a terminal.
    static func progress(_ message: String, done: Bool = false) {
        guard showsProgress else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(message)\(done ? "\n" : "")".utf8))
    }

    /// Clears the progress line, so that what follows starts on a clean line.
    static func clearProgress() {
        guard showsProgress else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Asks `question` on standard error and reads a yes/no answer from standard input.
    static func confirm(_ question: String) -> Bool {
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
