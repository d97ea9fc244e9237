import Foundation

/// A store's connection as the persistent history uses it, inside the store's transaction:
/// SQLite's connection and PostgreSQL's session run the same statements (`?` parameters,
/// Core Data's table and column names), so building, numbering, reading and pruning the
/// history is one piece of code for both stores (``HistoryWriter``, ``HistoryReader``).
protocol HistoryDatabase {
    /// The rows `sql` reads, the first `columns` values of each.
    func historyRows(_ sql: String, _ arguments: [SQLValue], columns: Int) throws -> [[SQLValue]]
    /// Runs `sql`; returns how many rows it changed.
    @discardableResult
    func historyRun(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// The upper-cased column names of `table`, or an empty set when there is no such table.
    func historyColumns(of table: String) throws -> Set<String>
    /// Called by ``HistoryWriter`` before it numbers a transaction, inside the saving
    /// transaction: whatever keeps transaction numbers in commit order, held until that
    /// transaction ends (see the conforming stores).
    func lockHistoryNumbering() throws
}

extension HistoryDatabase {
    /// The first column of the first row, or nil.
    func historyScalar(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLValue? {
        try historyRows(sql, arguments, columns: 1).first?.first
    }

    /// Reserves `count` keys of history table `table` (entity `number` in `Z_PRIMARYKEY`)
    /// and returns the last key before them, past any key already in the table. In the
    /// writing transaction, after ``lockHistoryNumbering()``.
    func reserveHistoryKeys(_ count: Int, number: Int64, name: String, table: String) throws -> Int64 {
        let stored = try historyScalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(number)])
        var last = stored?.integerValue ?? 0
        if let maximum = try historyScalar("SELECT MAX(Z_PK) FROM \(table)")?.integerValue { last = max(last, maximum) }
        if stored == nil {
            try historyRun("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, ?)",
                           [.integer(number), .text(name), .integer(last + Int64(count))])
        } else {
            try historyRun("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last + Int64(count)), .integer(number)])
        }
        return last
    }

    /// The number of the last transaction ever recorded (0 when none), pruned or not: the
    /// larger of `TRANSACTION`'s `Z_MAX` in `Z_PRIMARYKEY` (which numbering moves past every
    /// number it hands out, and a restore past every number the replaced store handed out:
    /// ``moveHistory(past:)``) and the largest number in `ATRANSACTION` (when there is one).
    func lastIssuedHistoryNumber() throws -> Int64 {
        let reserved = try historyScalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(HistorySchema.transactionEntity)])?.integerValue ?? 0
        guard try !historyColumns(of: "ATRANSACTION").isEmpty else { return reserved }
        return max(reserved, try historyScalar("SELECT MAX(Z_PK) FROM ATRANSACTION")?.integerValue ?? 0)
    }

    /// Moves the history of this database (a restore's staged copy) past every number
    /// `shift` stands above: each transaction's number (and its changes' `ZTRANSACTIONID`)
    /// grows by `shift`, and `TRANSACTION`'s `Z_MAX` becomes the copy's last number plus
    /// `shift` (the row is added when missing, so a store without history tables remembers
    /// the numbers too). With `shift` one more than every number the replaced store handed
    /// out, number `shift` itself is never used: that gap makes every token taken before the
    /// restore read as expired (``HistoryReader/checkNothingMissing(after:)``), while a token
    /// taken after it (of a restored transaction or a new one) reads on. No two numbers meet:
    /// `shift` is above every number in the copy. In a write transaction.
    func moveHistory(past shift: Int64) throws {
        let last = try lastIssuedHistoryNumber()
        if try !historyColumns(of: "ATRANSACTION").isEmpty {
            try historyRun("UPDATE ATRANSACTION SET Z_PK = Z_PK + ?", [.integer(shift)])
            try historyRun("UPDATE ACHANGE SET ZTRANSACTIONID = ZTRANSACTIONID + ?", [.integer(shift)])
        }
        let number = last + shift
        if try historyRun("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(number), .integer(HistorySchema.transactionEntity)]) == 0 {
            try historyRun("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, 'TRANSACTION', 0, ?)",
                           [.integer(HistorySchema.transactionEntity), .integer(number)])
        }
    }

    /// Deletes the transactions up to and including `number` (or, with `date`, those
    /// committed before it) with their changes; returns how many transactions went. The
    /// strings stay (other transactions may name them). In a writing transaction.
    func deleteHistory(through number: Int64?, before date: Date? = nil) throws -> Int {
        if let number {
            try historyRun("DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", [.integer(number)])
            return try historyRun("DELETE FROM ATRANSACTION WHERE Z_PK <= ?", [.integer(number)])
        }
        guard let date else { return 0 }
        let time = SQLValue.real(date.timeIntervalSinceReferenceDate)
        try historyRun("DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE ZTIMESTAMP < ?)", [time])
        return try historyRun("DELETE FROM ATRANSACTION WHERE ZTIMESTAMP < ?", [time])
    }
}

extension SQLiteConnection: HistoryDatabase {
    func historyRows(_ sql: String, _ arguments: [SQLValue], columns: Int) throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        try query(sql, arguments) { statement in rows.append((0..<Int32(columns)).map { statement.value($0) }) }
        return rows
    }

    func historyRun(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try run(sql, arguments)
    }

    func historyColumns(of table: String) throws -> Set<String> {
        try columns(of: table)
    }

    /// Nothing to take: a SQLite save runs in `BEGIN IMMEDIATE` on the store's one writer,
    /// which holds every other writer of the file (in any process) off until `COMMIT`, so
    /// transactions are numbered in the order they commit.
    func lockHistoryNumbering() {}
}
