import Foundation

extension StoreTestCase {
    /// Runs `body` on a new thread and waits for it (the calling thread's queue does not run
    /// meanwhile).
    func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        done.wait()
    }
}
