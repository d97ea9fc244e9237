/// The placeholders of a list of values bound into `IN (...)`, so that lists of every length
/// share a few SQL texts (and so a few prepared statements) instead of one text per length.
///
/// The count is rounded up to a power of two and the list padded by repeating its last
/// value, which `IN` and `NOT IN` ignore: lists of 1 to 1,000 values make 11 texts, a
/// prepared statement keeps using the table's index, and every value keeps its own type
/// (unlike a list passed as one JSON text).
enum ParameterList {
    /// The number of placeholders for `count` values: the next power of two.
    static func paddedCount(_ count: Int) -> Int {
        count <= 1 ? 1 : 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    }

    /// `?, ?, ...` for `count` values, padded.
    static func placeholders(_ count: Int) -> String {
        let padded = paddedCount(count)
        var text = "?"
        text.reserveCapacity(padded * 3)
        for _ in 1..<padded { text += ", ?" }
        return text
    }

    /// Appends `values` to `arguments`, padded with repeats of the last one to match
    /// ``placeholders(_:)``.
    static func append(_ values: [SQLValue], to arguments: inout [SQLValue]) {
        guard let last = values.last else { return }
        arguments += values
        arguments += repeatElement(last, count: paddedCount(values.count) - values.count)
    }
}
