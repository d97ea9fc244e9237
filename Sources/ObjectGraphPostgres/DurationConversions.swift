import Foundation
import NIOCore

// A driver timeout is a `Duration`; NIO, Foundation and PostgreSQL each count time their own way.
extension Duration {
    /// The same length as NIO's `TimeAmount` (nanoseconds, saturating).
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .nanoseconds(seconds < 0 ? .min : .max) }
        return .nanoseconds(whole &+ attoseconds / 1_000_000_000)
    }

    /// The length in seconds, for Foundation's dates.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The length in whole milliseconds (saturating), as PostgreSQL's settings take it.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        return whole &+ attoseconds / 1_000_000_000_000_000
    }
}
