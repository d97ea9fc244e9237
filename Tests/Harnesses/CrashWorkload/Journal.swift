import Foundation

/// An append-only, fsync'd record of what each save intends (its number, kind and the
/// digest of the state it leads to) and of each save that returned.
///
/// Lines: `intend <k> <kind> <digest>` before a save starts, `done <k>` after it returned,
/// `found <k>` when the verifier found the store in the state of save `k`, which was in
/// flight when its process was killed (so it committed without returning).
struct Journal {
    struct Entry {
        var number: Int
        var kind: String
        var digest: String
        var returned: Bool
        /// Returned, or found in the store after a kill.
        var committed: Bool
    }

    let url: URL

    /// Appends `line` and waits until it is on disk.
    func append(_ line: String) {
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        precondition(fd >= 0, "cannot open the journal \(url.path): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        precondition(write(fd, bytes, bytes.count) == bytes.count, "cannot write the journal \(url.path)")
        precondition(fsync(fd) == 0, "cannot fsync the journal \(url.path)")
    }

    /// Every intended save in order, with whether it returned. A torn last line (the
    /// process was killed while writing it) is ignored: its save had not started.
    func entries() -> [Entry] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var entries: [Entry] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ")
            if fields.count == 4, fields[0] == "intend", let number = Int(fields[1]), fields[3].count == 64 {
                entries.append(Entry(number: number, kind: String(fields[2]), digest: String(fields[3]), returned: false, committed: false))
            } else if fields.count == 2, fields[0] == "done" || fields[0] == "found", let number = Int(fields[1]),
                      let last = entries.indices.last, entries[last].number == number {
                entries[last].returned = entries[last].returned || fields[0] == "done"
                entries[last].committed = true
            }
        }
        return entries
    }
}
