import ArgumentParser

/// `managedrecord`: one-line fetches, counts, aggregates, schema, checks, deletes, JSON
/// export and import, backup and restore on a store in Core Data's SQLite layout, written here or by Apple's
/// Core Data (with `--model`). See docs/cli.md.
@main
struct ManagedRecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "managedrecord",
        abstract: "Query and maintain a Core Data SQLite store from the shell.",
        discussion: """
        Stores written by ManagedRecord describe their own model. For a store written by \
        Apple's Core Data, give its model with --model Model.xcdatamodeld.
        Read commands open the store read-only and never change it.
        """,
        subcommands: [FetchCommand.self, CountCommand.self, DistinctCommand.self, AggregateCommand.self,
                      SchemaCommand.self, CheckCommand.self, DeleteCommand.self, ExportCommand.self, ImportCommand.self,
                      BackupCommand.self, RestoreCommand.self, MigrateCommand.self, HistoryCommand.self, WatchCommand.self]
    )
}
