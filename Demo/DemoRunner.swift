import Foundation

/// Reads the command line (`[SECTION ...] [--keep] [--list]`), makes the folder, runs the
/// chosen sections (all by default) in the tour's order, and removes the folder unless asked
/// to keep it.
@MainActor
struct DemoRunner {
    let sections: [DemoSection]

    func run(arguments: [String]) async throws {
        var keep = false
        var chosen: [DemoSection] = []
        for argument in arguments {
            switch argument {
            case "--keep": keep = true
            case "--list", "--help", "-h":
                out("usage: swift run Demo [SECTION ...] [--keep]\n\nsections:")
                for section in sections { out("  \(section.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \(section.title)") }
                return
            default:
                guard let section = sections.first(where: { $0.name == argument }) else {
                    FileHandle.standardError.write(Data("Demo: no section \"\(argument)\"; the sections: \(sections.map(\.name).joined(separator: ", ")) (or --keep, --list)\n".utf8))
                    exit(2)
                }
                chosen.append(section)
            }
        }
        // In the tour's order, each once: a section's prerequisites then run narrated first.
        chosen = chosen.isEmpty ? sections : sections.filter { section in chosen.contains { $0.name == section.name } }

        let (folder, owned) = try demoFolder()
        out("ManagedRecord demo: Core Data's object graph on Linux, stored in Core Data's SQLite layout.")
        out("Stores go in \(folder.path)")
        let demo = DemoRun(folder: folder)
        for section in chosen {
            do {
                try await demo.run(section)
            } catch {
                out("   !! the \(section.name) section failed: \(error)")
                out("The stores are kept in \(folder.path) to look into.")
                exit(1)
            }
        }

        out("\nDone: \(chosen.count) \(chosen.count == 1 ? "section" : "sections") (\(chosen.map(\.name).joined(separator: ", "))), every check passed.")
        if keep || !owned {
            out("The stores are kept in \(folder.path); look inside with, for example:")
            out("   sqlite3 \(demo.companyStoreURL.path) '.tables'")
        } else {
            try FileManager.default.removeItem(at: folder)
            out("Removed \(folder.path) (pass --keep to keep the stores).")
        }
    }

    /// `$XDG_DATA_HOME/ManagedRecordDemo` when that variable is set (emptied, and kept
    /// afterwards), else a new temporary folder that the demo owns and removes.
    private func demoFolder() throws -> (URL, owned: Bool) {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            let folder = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("ManagedRecordDemo", isDirectory: true)
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return (folder, false)
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ManagedRecordDemo-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, true)
    }
}
