import Foundation
import ManagedRecord

/// The class-level helpers in async code, as a script writes them: an object fetched before
/// several `await`s is changed after them and committed from the main context; a
/// `perform` block and its child tasks work on contexts of their own; `fetchInBackground`
/// hands its objects back in the main context.
@MainActor
func asyncScript() async throws {
    step("Top-level code with await: the main context follows the main queue across suspensions.")
    let member = try StaffMember.get(where: "lastName == %@", "Okafor")
        ?? StaffMember.fetchAll(sortedBy: [SortKey("lastName")]).first!
    let before = member.salary
    let counted = try await StaffMember.perform { try StaffMember.count() }   // a task's context
    try await Task.sleep(for: .milliseconds(1))
    say("after two awaits this code runs on the main thread: \(Thread.isMainThread) — and still on the main queue")
    member.salary += 1_000
    try StaffMember.commit()
    say("StaffMember.perform counted \(counted); \(member.fullName)'s raise after the awaits is committed")
    expect(member.managedObjectContext === StaffMember.contextManager.mainThreadContext, "the object stays in the main context")

    step("Child tasks inside perform get contexts of their own; their commits merge into the main context.")
    let hired = try await StaffMember.perform { () -> Int in
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in ["Ana", "Ben", "Cy"] {
                group.addTask {
                    let hire = StaffMember.newEntity()   // the child task's own context
                    hire.firstName = name; hire.lastName = "Async"; hire.age = 25
                    try StaffMember.commit()
                }
            }
            try await group.waitForAll()
        }
        return try StaffMember.count(where: "lastName == %@", "Async")
    }
    let seen = try await StaffMember.fetchInBackground(where: "lastName == %@", "Async")
    say("three child tasks hired \(hired); fetchInBackground returns \(seen.count) of them in the main context")
    expect(hired == 3 && seen.count == 3, "three hires")
    expect(seen.allSatisfy { $0.managedObjectContext === StaffMember.contextForCurrentThread }, "fetchInBackground answers in the caller's context")

    let raised = try StaffMember.count(where: "salary == %@", before + 1_000)
    expect(raised >= 1, "the raise is committed")
}
