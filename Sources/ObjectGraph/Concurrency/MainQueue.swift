import CObjectGraphRuntime
import Dispatch
import Foundation

/// Whether the caller runs on the main queue: the main thread, or — once top-level code or
/// `@MainActor` code has awaited, when on Linux a worker thread drains the main queue — that
/// worker while it runs main-queue (main-actor) work. Core Data ties its view context to the
/// main *queue* for the same reason.
package enum MainQueue {
    private static let key = DispatchSpecificKey<UInt8>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return true
    }()

    /// The main thread's token (`og_thread_token`), or 0 when it could not be recorded.
    static var mainThreadToken: UInt { og_main_thread_token() }

    /// Whether the calling code runs on the main queue now (the main thread, main-actor code,
    /// or main-queue blocks, on whichever thread drains the queue).
    package static var isCurrent: Bool {
        if og_thread_token() == og_main_thread_token() || Thread.isMainThread { return true }
        _ = marked
        return DispatchQueue.getSpecific(key: key) != nil
    }
}
