import ArgumentParser
import Foundation

/// `managedrecord`: one-line fetches, counts, aggregates, schema, checks, deletes, JSON
/// export and import, backup and restore on a store in Core Data's SQLite layout, written here or by Apple's
/// Core Data (with `--model`), or in a PostgreSQL database. See docs/cli.md.
@main
struct ManagedRecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "managedrecord",
        abstract: "Query and maintain a Core Data store (a SQLite file or a PostgreSQL database) from the shell.",
        discussion: """
        Stores written by ManagedRecord describe their own model. For a store written by \
        Apple's Core Data, give its model with --model Model.xcdatamodeld.
        Read commands open the store read-only and never change it.
        STORE is a file, or a PostgreSQL URL (postgres://user@host:5432/database): its password \
        comes from the URL, else PGPASSWORD, else ~/.pgpass (mode 0600), and is never printed.

        Exit status: 0 success; 1 an error, a failed check, an unconfirmed delete or a failed \
        migration forecast; 64 a malformed command line.

        EXAMPLES:
          managedrecord fetch Company.sqlite Employee "age > 40" --sort lastName
          managedrecord count postgres://app@dbhost/company Employee
          managedrecord schema Company.sqlite --format json
        """,
        version: ManagedRecordVersion.current,
        subcommands: [FetchCommand.self, CountCommand.self, DistinctCommand.self, AggregateCommand.self,
                      SchemaCommand.self, CheckCommand.self, DeleteCommand.self, ExportCommand.self, ImportCommand.self,
                      BackupCommand.self, RestoreCommand.self, MigrateCommand.self, HistoryCommand.self, WatchCommand.self]
    )

    /// Runs the command line. Every failure is one style: `managedrecord: error: MESSAGE` on
    /// standard error (a malformed command line adds its usage), exit status 1, or 64 for a
    /// malformed command line (ArgumentParser printed `Error: ...` before).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            // The command has said what went wrong.
            Foundation.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            // Help, --version and completion scripts: printed as ArgumentParser prints them.
            guard code != .success else { exit(withError: error) }
            if code == .validationFailure {
                var text = fullMessage(for: error)
                if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
                Terminal.error(text.trimmingCharacters(in: .whitespacesAndNewlines))
            } else {
                Terminal.error(describe(error))
            }
            Foundation.exit(code.rawValue)
        }
    }
}
