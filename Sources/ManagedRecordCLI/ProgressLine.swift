import Foundation
import Synchronization

/// Progress of long work on standard error when it is a terminal (nothing in a pipe or a
/// file): `exported 2000 of 10000 Employee objects, 4100/s, 2 s left`, rewritten in place,
/// then a last line with the count, the time taken and the rate.
final class ProgressLine: Sendable {
    let verb: String
    let noun: String
    let total: Int
    /// The shortest time between two updates, so a fast loop does not spend its time writing.
    let interval: Double
    private let started = Date()
    private let lastShown = Mutex<Double>(-.infinity)

    /// `verb` in the past tense (`exported`), `noun` plural (`Employee objects`).
    init(_ verb: String, _ noun: String, total: Int, interval: Double = 0.1) {
        self.verb = verb
        self.noun = noun
        self.total = total
        self.interval = interval
    }

    /// Shows `done` of the total, unless the last update was shown less than `interval` ago.
    func update(_ done: Int) {
        guard Terminal.showsProgress else { return }
        let elapsed = Date().timeIntervalSince(started)
        let due = lastShown.withLock { last in
            guard elapsed - last >= interval else { return false }
            last = elapsed
            return true
        }
        if due { Terminal.progress(Self.text(verb, noun, done: done, total: total, elapsed: elapsed)) }
    }

    /// The last line: how many, in how long.
    func finish(_ done: Int) {
        guard Terminal.showsProgress else { return }
        let elapsed = Date().timeIntervalSince(started)
        var text = "\(verb) \(done) \(noun) in \(Self.duration(elapsed))"
        if let rate = Self.rate(done, elapsed) { text += " (\(rate)/s)" }
        Terminal.progress(text, done: true)
    }

    /// `imported 2 of 5 Employee records, 40/s, 1 s left` (rate and time left once known).
    static func text(_ verb: String, _ noun: String, done: Int, total: Int, elapsed: Double) -> String {
        var text = "\(verb) \(done) of \(total) \(noun)"
        if let rate = rate(done, elapsed) {
            text += ", \(rate)/s"
            if done < total { text += ", \(duration(Double(total - done) / (Double(done) / elapsed))) left" }
        }
        return text
    }

    private static func rate(_ done: Int, _ elapsed: Double) -> Int? {
        guard done > 0, elapsed > 0 else { return nil }
        return Int((Double(done) / elapsed).rounded())
    }

    /// `0.4 s`, `12 s`, `3 min 5 s`, `2 h 10 min`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
