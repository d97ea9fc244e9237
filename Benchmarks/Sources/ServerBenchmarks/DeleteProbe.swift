import Foundation
import Logging
import ManagedRecord
import PostgresNIO

/// `--delete-probe`: where ManagedRecord's delete-all time goes on PostgreSQL. On the store's
/// own table (10,000 rows committed through the helpers each time), medians of the runs:
/// the helpers' `deleteAll(where: "TRUEPREDICATE")` and `deleteAll()`, then through a raw
/// postgres-nio connection the plain `DELETE FROM ZSTAFF` Fluent's delete amounts to, and the
/// statements the library sent before and sends now (`DELETE … RETURNING Z_PK, Z_ENT`, keys
/// read back for the change notification and the contexts: one row per key, then one row per
/// entity with its keys joined into a text).
enum DeleteProbe {
    @MainActor static func run(rows: [Employee], settings: ServerSettings, logger: Logger, runs: Int, warmups: Int) async throws {
        try ManagedRecordServerBench.setUp(settings: settings)
        let db = try await PostgresConnection.connect(configuration: settings.connection, id: 2, logger: logger)
        try await db.query(PostgresQuery(unsafeSQL: "SET search_path TO \(settings.storeSchema)"), logger: logger)
        let labels = ["MR deleteAll(where: \"TRUEPREDICATE\")", "MR deleteAll()", "raw DELETE FROM ZSTAFF",
                      "raw WITH d AS (DELETE FROM ZSTAFF RETURNING Z_PK, Z_ENT) SELECT …",
                      "raw WITH d AS (…) SELECT Z_ENT, string_agg(Z_PK::text, ',') … GROUP BY Z_ENT"]
        var samples = Array(repeating: [Double](), count: labels.count)
        for iteration in 0..<(warmups + runs) {
            for k in labels.indices {
                try ManagedRecordServerBench.insert(rows)
                var r = RunResult()
                switch k {
                case 0: try r.time(.deleteAll) { _ = try Staff.deleteAll(where: "TRUEPREDICATE") }
                case 1: try r.time(.deleteAll) { _ = try Staff.deleteAll() }
                case 2: r.ms[.deleteAll] = try await rawDelete(db, .none, expected: rows.count, logger: logger)
                case 3: r.ms[.deleteAll] = try await rawDelete(db, .rows, expected: rows.count, logger: logger)
                default: r.ms[.deleteAll] = try await rawDelete(db, .joinedText, expected: rows.count, logger: logger)
                }
                let left = try Staff.count()
                precondition(left == 0, "\(left) rows left after \(labels[k])")
                if iteration >= warmups { samples[k].append(r.ms[.deleteAll]!) }
            }
        }
        try await db.close()
        print("delete all of \(rows.count) rows on ManagedRecord's table, median of \(runs) (min-max):")
        for (label, xs) in zip(labels, samples) {
            print("  \(label.padding(toLength: 72, withPad: " ", startingAt: 0)) \(String(format: "%6.1f ms (%.1f-%.1f)", median(xs), xs.min()!, xs.max()!))")
        }
    }

    /// How a raw delete reads the deleted keys back: not at all, one row per key (the
    /// library's statement before 2026-11-27), or one row per entity with the keys joined
    /// into a text (the library's statement since).
    private enum KeysBack { case none, rows, joinedText }

    /// Milliseconds of one raw delete of every row, off the main actor (as the raw way runs):
    /// rows read on the main actor arrive a few at a time between its turns.
    private static func rawDelete(_ db: PostgresConnection, _ keysBack: KeysBack, expected: Int, logger: Logger) async throws -> Double {
        var r = RunResult()
        let n = try await r.time(.deleteAll) {
            var n = 0
            switch keysBack {
            case .none:
                _ = try await db.query("DELETE FROM ZSTAFF", logger: logger)
                n = expected
            case .rows:
                let keys = try await db.query("WITH d AS (DELETE FROM ZSTAFF RETURNING Z_PK, Z_ENT) SELECT Z_PK, Z_ENT FROM d", logger: logger)
                for try await _ in keys.decode((Int64, Int64).self) { n += 1 }
            case .joinedText:
                let keys = try await db.query("WITH d AS (DELETE FROM ZSTAFF RETURNING Z_PK, Z_ENT) SELECT Z_ENT, string_agg(Z_PK::text, ',') FROM d GROUP BY Z_ENT", logger: logger)
                for try await (_, joined) in keys.decode((Int64, String).self) { n += joined.split(separator: ",").count }
            }
            return n
        }
        precondition(n == expected, "the delete returned \(n) keys")
        return r.ms[.deleteAll]!
    }
}
