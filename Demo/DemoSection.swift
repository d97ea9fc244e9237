import Foundation

/// One section of the tour: a name to run it by (`swift run Demo fetch`), a title, and the
/// code, which narrates with `step`/`say` and checks what it prints with `expect`.
///
/// A section is a `static let` on `DemoSection` in a file of its own, listed once in
/// main.swift. A section that needs another's store first calls `demo.require(.other)`,
/// which runs the other one quietly when it has not run yet.
struct DemoSection: Sendable {
    let name: String
    let title: String
    let run: @MainActor @Sendable (DemoRun) async throws -> Void

    init(_ name: String, _ title: String, run: @escaping @MainActor @Sendable (DemoRun) async throws -> Void) {
        self.name = name
        self.title = title
        self.run = run
    }
}

/// One run of the demo: its folder and what earlier sections left there.
@MainActor
final class DemoRun {
    /// Where every store of this run lives.
    let folder: URL
    /// The sections that have run, by name.
    private(set) var completed: Set<String> = []
    /// Set by the `model` section: John's object ID as a URI, resolved again by `fetch`.
    var johnURI: URL?

    init(folder: URL) { self.folder = folder }

    /// The Company store the `model` section writes and later sections read.
    var companyStoreURL: URL { folder.appendingPathComponent("Company.sqlite") }

    /// Runs `section` with its narration.
    func run(_ section: DemoSection) async throws {
        out("\n== \(section.name): \(section.title) ==")
        try await section.run(self)
        completed.insert(section.name)
    }

    /// Runs `section` quietly first, unless it has run: its stores are what this section reads.
    func require(_ section: DemoSection) async throws {
        guard !completed.contains(section.name) else { return }
        say("(first, quietly: the \"\(section.name)\" section, which writes the store this one reads)")
        let wasMuted = narrationMuted
        narrationMuted = true
        defer { narrationMuted = wasMuted }
        try await section.run(self)
        completed.insert(section.name)
    }

    /// The `managedrecord` command that shows the same from a shell.
    func shell(_ arguments: String...) {
        out("   $ swift run managedrecord " + arguments.map(Self.quoted).joined(separator: " "))
    }

    private static func quoted(_ argument: String) -> String {
        let plain = argument.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./,=:".unicodeScalars.contains($0) }
        return plain && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
