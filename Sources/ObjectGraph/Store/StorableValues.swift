import Foundation

/// How a store keeps `Decimal` attributes (docs/stores.md).
enum DecimalStorage: Sendable {
    /// As Core Data's SQLite layout does: the nearest double in a REAL column, read back
    /// rounded to 15 significant digits (`Decimal.fromStored`). Exact for every Decimal of
    /// at most 15 significant digits; a save refuses any other.
    case real
    /// Exactly: PostgreSQL's `numeric` holds every finite Decimal.
    case exact
}

extension SlotValue {
    /// Why no store of the kind keeping Decimals as `decimals` can hold this value of an
    /// attribute unchanged, or nil when it can. A save refuses such a value with a
    /// ``ValidationError`` before anything is written (validation, batch updates), so a
    /// value never reads back other than it was set.
    ///
    /// "Unchanged" means: the value read back after the store's round trip, through the
    /// codec the store reads with, is `==` to the value saved (bit for bit for a double).
    /// - NaN (a `Double`, `Float`, `Date` or `Decimal` that is not a number): refused on
    ///   every store. SQLite writes NULL for it (read back as 0 or nil); PostgreSQL's
    ///   `double precision` would hold it, but a store's values move between stores (JSON
    ///   export, `managedrecord import`), and NaN equals nothing, not even itself, so no
    ///   predicate or uniqueness constraint could find it.
    /// - ±infinity is kept exactly by both stores (SQLite's REAL, PostgreSQL's `double precision`).
    /// - A `Decimal` on a store of ``DecimalStorage/real``: refused when the 15 significant
    ///   digits of its nearest double are not the Decimal (it has more digits).
    func unstorableReason(decimals: DecimalStorage) -> String? {
        switch self {
        case .double(let value) where value.isNaN:
            return "is NaN (not a number), which no store keeps (SQLite would write NULL); set a number"
        case .decimal(let value):
            if value.isNaN { return "is NaN (not a number), which no store keeps; set a number" }
            guard decimals == .real else { return nil }
            let readBack = Decimal.fromStored(value.storedDouble)
            if readBack == value { return nil }
            return "is \(value), which has more than the 15 significant digits a SQLite store keeps: it stores a Decimal "
                + "as Core Data does, as a double (REAL), and this one would read back as \(readBack); round it to 15 "
                + "significant digits, or keep exact Decimals in a PostgreSQL store (numeric)"
        default:
            return nil
        }
    }
}
