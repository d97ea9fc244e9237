import Foundation
import ManagedRecord

/// The scenarios. Every one but `ok` is a misuse that must stop the process.
@MainActor
enum Probes {
    static func run(_ scenario: String) async throws {
        switch scenario {
        case "ok": try await correctUse()
        case "wrong-thread": try wrongThread()
        case "main-queue-elsewhere": try await mainQueueContextFromADetachedTask()
        case "private-outside-perform": try privateContextOutsidePerform()
        case "during-perform": try useDuringAnotherThreadsPerform()
        case "wrong-task": try await boundContextFromAnotherTask()
        case "child-task": try await boundContextFromAChildTask()
        case "record-child-task": try await recordContextFromAChildTask()
        case "perform-on-bound": try await performFromAnotherTaskOnABoundContext()
        case "detached-write": try await changeAnObjectReturnedByPerform()
        case "detached-fault": try readAFaultAfterReset()
        default: fatalError("unknown scenario \(scenario)")
        }
    }

    /// Everything used as the rules say: no stop.
    static func correctUse() async throws {
        try await Task.sleep(for: .milliseconds(1))
        _ = try view.count(for: FetchRequest<Item>())
        let background = container.newBackgroundContext()
        _ = try await background.perform { try background.count(for: FetchRequest<Item>()) }
        _ = try await background.withTaskBinding {
            try await Task.sleep(for: .milliseconds(1))
            return try background.count(for: FetchRequest<Item>())
        }
        let names = try await Item.perform {
            async let child = Item.count()
            return try await (child, Item.fetchAll().map(\.name))
        }
        precondition(names.1 == ["first"])
    }

    static func wrongThread() throws {
        let confined = ManagedObjectContext(coordinator: container.persistentStoreCoordinator, concurrencyType: .confined, name: "probe.confined")
        _ = try confined.count(for: FetchRequest<Item>())
        let done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? confined.count(for: FetchRequest<Item>())
            done.signal()
        }.start()
        done.wait()
    }

    static func mainQueueContextFromADetachedTask() async throws {
        let context = view
        try await Task.detached { _ = try context.count(for: FetchRequest<Item>()) }.value
    }

    static func privateContextOutsidePerform() throws {
        _ = try container.newBackgroundContext().count(for: FetchRequest<Item>())
    }

    static func useDuringAnotherThreadsPerform() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let context = view
        Thread {
            context.performAndWait {
                entered.signal()
                release.wait()
            }
        }.start()
        entered.wait()
        _ = try view.count(for: FetchRequest<Item>())
        release.signal()
    }

    static func boundContextFromAnotherTask() async throws {
        let background = container.newBackgroundContext()
        try await background.withTaskBinding {
            try await Task.detached { _ = try background.count(for: FetchRequest<Item>()) }.value
        }
    }

    static func boundContextFromAChildTask() async throws {
        let background = container.newBackgroundContext()
        try await background.withTaskBinding {
            async let child = background.count(for: FetchRequest<Item>())
            _ = try await child
        }
    }

    static func recordContextFromAChildTask() async throws {
        try await Item.perform {
            let parent = Item.contextForCurrentThread
            try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try parent.count(for: FetchRequest<Item>()) }
                _ = try await group.next()
            }
        }
    }

    static func performFromAnotherTaskOnABoundContext() async throws {
        let background = container.newBackgroundContext()
        try await background.withTaskBinding {
            _ = try await Task.detached { try await background.perform { try background.count(for: FetchRequest<Item>()) } }.value
        }
    }

    static func changeAnObjectReturnedByPerform() async throws {
        let items = try await Item.perform { try Item.fetchAll() }
        items[0].name = "renamed"
        try Item.commit()
    }

    static func readAFaultAfterReset() throws {
        let fault = view.object(with: first.objectID) as! Item
        view.refresh(fault, mergeChanges: false)
        view.reset()
        print(fault.name)
    }
}
