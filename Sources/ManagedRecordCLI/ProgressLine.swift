import Foundation
import Synchronization

/// Progress of long work on standard error when it is a terminal (nothing in a pipe or a
/// file): `exported 2000 of 10000 Employee objects, 4100/s, 2.0 s left` (rate and time left
/// measured from the first update), rewritten in place,
/// then a last line with the count, the time taken and the rate.
final class ProgressLine: Sendable {
    let verb: String
    let noun: String
    let total: Int
    /// The shortest time between two updates, so a fast loop does not spend its time writing.
    let interval: Double
    private let started = Date()
    /// When the last update was shown, and the first update (the rate is measured from it,
    /// so that the time before the work starts, a fetch, does not count).
    private let state = Mutex<(lastShown: Double, origin: (elapsed: Double, done: Int)?)>((-.infinity, nil))

    /// `verb` in the past tense (`exported`), `noun` plural (`Employee objects`).
    init(_ verb: String, _ noun: String, total: Int, interval: Double = 0.1) {
        self.verb = verb
        self.noun = noun
        self.total = total
        self.interval = interval
    }

    /// Measures the rate from now, with nothing done (else from the first update).
    func start() {
        let elapsed = Date().timeIntervalSince(started)
        state.withLock { $0.origin = (elapsed, 0) }
    }

    /// Shows `done` of the total, unless the last update was shown less than `interval` ago
    /// (and `always` is false).
    func update(_ done: Int, always: Bool = false, note: String? = nil) {
        guard Terminal.showsProgress else { return }
        let elapsed = Date().timeIntervalSince(started)
        let shown: (elapsed: Double, done: Int)? = state.withLock { state in
            guard let origin = state.origin else {
                state.origin = (elapsed, done)
                state.lastShown = elapsed
                return (0, 0)
            }
            guard always || elapsed - state.lastShown >= interval else { return nil }
            state.lastShown = elapsed
            return (elapsed - origin.elapsed, done - origin.done)
        }
        guard let shown else { return }
        var text = "\(verb) \(done) of \(total) \(noun)"
        if let rate = Self.rate(shown.done, shown.elapsed) {
            text += ", \(rate)/s"
            if done < total { text += ", \(Self.duration(Double(total - done) / (Double(shown.done) / shown.elapsed))) left" }
        }
        Terminal.progress(text + (note.map { ", \($0)" } ?? ""))
    }

    /// The last line: how many, in how long.
    func finish(_ done: Int) {
        guard Terminal.showsProgress else { return }
        let elapsed = Date().timeIntervalSince(started)
        var text = "\(verb) \(done) \(noun) in \(Self.duration(elapsed))"
        if let rate = Self.rate(done, elapsed) { text += " (\(rate)/s)" }
        Terminal.progress(text, done: true)
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
