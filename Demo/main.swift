import Foundation

// ManagedRecord demo: a tour of what the ObjectGraph stack and the ManagedRecord layer do
// today, on real store files, in sections. `swift run Demo` runs them all, `swift run Demo
// fetch json` runs those two, `--keep` keeps the stores, `--list` lists the sections. Each
// section checks what it prints; a check that fails stops the demo with exit status 1.
//
// Adding a section: write `extension DemoSection { static let mine = DemoSection("mine",
// "what it shows") { demo in ... } }` in a file of its own in Demo/, and add `.mine,` below.

let sections: [DemoSection] = [
    .modelAndSave,
    .fetching,
    .aggregates,
    .contexts,
    .managedRecord,
    .asyncCode,
    .appleStore,
    .json,
    .observation,
    .migration,
    .history,
    .backup,
    .stagedMigration,
    .postgres,
]

// The history section's other process: this executable, run again to commit once.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child-commit", arguments.count == 2 {
    childCommit(storeURL: URL(fileURLWithPath: arguments[1]))
}

try await DemoRunner(sections: sections).run(arguments: arguments)
