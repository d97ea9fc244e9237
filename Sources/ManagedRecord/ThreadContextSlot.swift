import Foundation
import ObjectGraph
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Per-thread storage for one manager's contexts: each thread keeps a small table of its
/// contexts, one per slot (manager), in one process-wide thread-specific key whose
/// destructor releases the table when the thread ends, so thousands of short threads leave
/// nothing behind.
///
/// A slot that is closed (its stack torn down or set up again) leaves entries on threads
/// that live on, such as a server's workers: each thread drops them the next time it stores
/// an entry, so a long-lived thread holds at most the contexts of the stacks it used since.
final class ThreadContextSlot: @unchecked Sendable {  // per-thread tables are touched by their own thread only
    final class Entry {
        let context: ManagedObjectContext
        let generation: Int
        /// The manager's settings (merge policy, undo) last applied to the context.
        var settingsVersion: Int
        init(context: ManagedObjectContext, generation: Int, settingsVersion: Int) {
            self.context = context
            self.generation = generation
            self.settingsVersion = settingsVersion
        }
    }

    /// One thread's entries, by slot serial (a thread uses a model or two: a short array).
    private final class Table {
        var entries: [(slot: Int, entry: Entry)] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // Released on a worker thread: while a thread exits, its own runtime state (and a
            // thread sanitizer's) may already be torn down, so no context deinit runs here.
            let address = UInt(bitPattern: pointer)
            DispatchQueue.global().async {
                if let pointer = UnsafeRawPointer(bitPattern: address) { Unmanaged<Table>.fromOpaque(pointer).release() }
            }
        }
        precondition(result == 0, "ManagedRecord: cannot create thread-specific storage (error \(result))")
        return key
    }()

    private static let serials = Atomic<Int>(0)
    /// The serials of slots not closed yet.
    private static let openSlots = Locked<Set<Int>>([])

    /// This slot's number, never reused (unlike an object's address).
    private let serial: Int

    init() {
        serial = Self.serials.wrappingAdd(1, ordering: .relaxed).newValue
        _ = Self.openSlots.withLock { $0.insert(serial) }
    }

    deinit { close() }

    /// Lets go of this slot's entries on every thread: each thread releases its entry the
    /// next time it stores one (for any slot), or when it ends.
    func close() {
        _ = Self.openSlots.withLock { $0.remove(serial) }
    }

    private var table: Table? {
        pthread_getspecific(Self.key).map { Unmanaged<Table>.fromOpaque($0).takeUnretainedValue() }
    }

    /// This thread's entry, if any.
    var current: Entry? {
        guard let table else { return nil }
        for item in table.entries where item.slot == serial { return item.entry }
        return nil
    }

    /// Replaces this thread's entry, releasing the previous one and this thread's entries
    /// of closed slots.
    func set(_ entry: Entry?) {
        let table: Table
        if let existing = self.table {
            table = existing
        } else {
            table = Table()
            pthread_setspecific(Self.key, Unmanaged.passRetained(table).toOpaque())
        }
        let open = Self.openSlots.withLock { slots in table.entries.map { slots.contains($0.slot) } }
        var kept: [(slot: Int, entry: Entry)] = []
        for (index, item) in table.entries.enumerated() where open[index] && item.slot != serial { kept.append(item) }
        if let entry { kept.append((serial, entry)) }
        table.entries = kept
    }
}
