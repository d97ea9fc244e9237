import Foundation
import ManagedRecord
import Testing

/// MagicalRecord's stack shape in the active-record layer (``ContextManager/StackShape``):
/// in the serialized suite of class-level helpers, which set up the process-wide registry.
extension RecordHelperTests {
    /// Runs `body` on a new thread (so it gets a thread context of its own) and returns its result.
    private func onNewThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            result.withLock { $0 = Result { try body() } }
            done.signal()
        }
        done.wait()
        return try result.value!.get()
    }

    @Test("Asked for MagicalRecord's stack, each thread's context is a child of the main context and commit reaches the store through it",
          arguments: StoreKind.allCases)
    func threadContextsAsChildrenOfMain(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let manager = try store.setUpRecords()
        defer { ManagedRecord.tearDown(model: SuiteModel.name) }
        #expect(manager.stackShape == .siblings)
        #expect(try onNewThread { Employee.contextForCurrentThread.parent == nil }, "by default a thread's context is the store's")

        manager.stackShape = .childrenOfMainContext
        let (isChild, counted, leftChanges) = try onNewThread { () -> (Bool, Int, Bool) in
            let context = Employee.contextForCurrentThread
            let ann = Employee.newEntity()
            ann.firstName = "Ann"
            try Employee.commit()
            return (context.parent != nil && context.parent === manager.mainThreadContext, try Employee.count(), context.hasChanges)
        }
        #expect(isChild)
        #expect(counted == 1)
        #expect(!leftChanges)
        let reader = try store.container().viewContext
        #expect(try reader.fetch(FetchRequest<Employee>()).map(\.firstName) == ["Ann"], "the main context saved the commit to the store")

        // Another thread's child sees it, changes it, and commits through the main context.
        let age = try onNewThread { () -> Int16 in
            let ann = try #require(try Employee.get(where: "firstName == 'Ann'"))
            ann.age = 41
            try Employee.commit()
            return ann.age
        }
        #expect(age == 41)
        let again = try store.container().viewContext
        #expect(try again.fetch(FetchRequest<Employee>()).map(\.age) == [41])
    }
}
