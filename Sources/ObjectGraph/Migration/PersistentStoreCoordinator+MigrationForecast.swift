import Foundation

extension PersistentStoreCoordinator {
    /// What opening the store at `storeURL` with `model` (and `stagedMigration`) would
    /// migrate, step by step, without changing the store (see ``MigrationForecast``). A store
    /// that needs no migration gives a forecast without steps.
    ///
    /// ```swift
    /// let forecast = try PersistentStoreCoordinator.migrationForecast(model: v2, storeURL: url)
    /// if !forecast.wouldSucceed { print(forecast.steps.flatMap(\.failures)) }
    /// ```
    ///
    /// The forecast is SQLite-only: it rehearses the migration on copies of the store file.
    /// A database server's URL (`postgres://...`) throws ``StoreError`` `.cannotOpen` saying
    /// so; a PostgreSQL store migrates in one transaction per stage, so a failure there
    /// changes nothing either (see docs/migration.md).
    ///
    /// - Throws: ``StoreError`` when there is no store or it cannot be read,
    ///   ``MigrationError`` `.locked` when another migration holds the store too long, or the
    ///   file system's error when the rehearsal's folder cannot be made beside the store.
    public static func migrationForecast(model: ManagedObjectModel, storeURL: URL, stagedMigration: StagedMigrationManager? = nil,
                                         allowsDroppingData: Bool = false) throws -> MigrationForecast {
        if let scheme = storeURL.scheme?.lowercased(), scheme.hasPrefix("postgres") {
            throw StoreError(.cannotOpen, url: URL(string: DatabaseServerLocation.redacted(storeURL)),
                             "a migration forecast is SQLite-only: it rehearses the migration on copies of a store file, and a PostgreSQL store has none. Open the store with the new model: its migration runs in one transaction per stage and changes nothing when it fails")
        }
        var migrator = StoreMigrator(allowsDroppingData: allowsDroppingData)
        migrator.stagedMigration = stagedMigration
        return try migrator.forecast(url: storeURL, model: model)
    }
}
