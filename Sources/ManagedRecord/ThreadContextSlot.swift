import Foundation
import ObjectGraph
#if canImport(Glibc)
import Glibc
#endif

/// Per-thread storage for one manager's contexts: each thread's context lives in a
/// thread-specific slot whose destructor releases it when the thread ends, so thousands of
/// short threads leave nothing behind.
final class ThreadContextSlot: @unchecked Sendable {  // the key is immutable; values are per thread
    final class Entry {
        let context: ManagedObjectContext
        let generation: Int
        init(context: ManagedObjectContext, generation: Int) {
            self.context = context
            self.generation = generation
        }
    }

    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // Released on a worker thread: while a thread exits, its own runtime state (and a
            // thread sanitizer's) may already be torn down, so no context deinit runs here.
            let address = UInt(bitPattern: pointer)
            DispatchQueue.global().async {
                if let pointer = UnsafeRawPointer(bitPattern: address) { Unmanaged<Entry>.fromOpaque(pointer).release() }
            }
        }
        precondition(result == 0, "ManagedRecord: cannot create thread-specific storage (error \(result))")
        self.key = key
    }

    deinit {
        pthread_key_delete(key)
    }

    /// This thread's entry, if any.
    var current: Entry? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Entry>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Replaces this thread's entry (releasing the previous one).
    func set(_ entry: Entry?) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, entry.map { Unmanaged.passRetained($0).toOpaque() })
        if let previous { Unmanaged<Entry>.fromOpaque(previous).release() }
    }
}
