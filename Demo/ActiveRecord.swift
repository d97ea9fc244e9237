import Foundation
import ManagedRecord

// The ManagedRecord part: RHManagedObject's one-line, class-level API on its own model and
// store. The classes have names of their own so nothing clashes with the Company model
// above; `modelName` tells ManagedRecord which set-up model (and store) serves them.

final class Team: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \StaffMember.$team, deleteRule: .nullify) var members: Set<StaffMember>
    override class var modelName: String? { "Staff" }
}

final class StaffMember: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Double = 0
    @Attribute var title: String? = nil
    @Attribute var badge: UUID = UUID()
    @Relationship var team: Team?                   // inverse: Team.members
    override class var modelName: String? { "Staff" }
    var fullName: String { "\(firstName) \(lastName)" }
}

/// The class-level helpers, then a background thread committing while this thread reads,
/// then the merged result. (The async part, as a script writes it, is in AsyncScript.swift.)
func activeRecord(folder: URL) throws {
    let url = folder.appendingPathComponent("Staff.sqlite")

    step("ManagedRecord: one line sets up a model, its store and a hidden context per thread.")
    let needsMigration = try ManagedRecord.doesRequireMigration(entities: [Team.self, StaffMember.self], storeURL: url)
    say("before setUp: ManagedRecord.doesRequireMigration(entities:storeURL:) = \(needsMigration) (there is no store yet)")
    let manager = try ManagedRecord.setUp(model: "Staff", entities: [Team.self, StaffMember.self], storeURL: url)
    say("ManagedRecord.setUp(model: \"Staff\", entities: [Team.self, StaffMember.self], storeURL: ...)")
    say("store file: \(manager.storeURL?.path ?? "-"); merge policy: \(manager.mergePolicy)")
    say("this thread is the main thread (\(Thread.isMainThread)), so its context is the main context: \(StaffMember.contextForCurrentThread.name)")
    expect(StaffMember.contextForCurrentThread === manager.mainThreadContext, "the main thread uses the main context")

    step("newEntity() inserts into this thread's context; commit() saves it. No context in sight.")
    let support = Team.newEntity()
    support.name = "Support"
    let research = Team.newEntity()
    research.name = "Research"
    let people: [(String, String, Int, Double, Team)] = [
        ("Ana", "Silva", 34, 48_000, support), ("Ben", "Okafor", 41, 55_000, support),
        ("Chloe", "Martin", 29, 51_000, research), ("Dev", "Patel", 52, 72_000, research),
        ("Eva", "Silva", 17, 12_000, support),
    ]
    for (first, last, age, salary, team) in people {
        let member = StaffMember.newEntity()
        member.firstName = first; member.lastName = last; member.age = age; member.salary = salary
        member.team = team
    }
    try StaffMember.commit()
    say("inserted 2 teams and 5 people, then StaffMember.commit(): \(try StaffMember.count()) people in the store")
    expect(try StaffMember.count() == 5, "five people committed")

    step("Fetching in one line: fetchAll, fetch(where:) with a format string or a typed predicate, get.")
    say("fetchAll(sortedBy: [SortKey(\"firstName\")]): \(try StaffMember.fetchAll(sortedBy: [SortKey("firstName")]).map(\.firstName))")
    let silvas = try StaffMember.fetch(where: "lastName == %@", "Silva", sortedBy: [SortKey("age")])
    say("fetch(where: \"lastName == %@\", \"Silva\", sortedBy: age): \(silvas.map(\.fullName))")
    let oldest = try StaffMember.fetch(where: \StaffMember.$age > 30, sortedBy: [SortKey("age", ascending: false)], limit: 2)
    say("fetch(where: \\StaffMember.$age > 30, sortedBy: age descending, limit: 2): \(oldest.map(\.fullName))")
    expect(oldest.map(\.firstName) == ["Dev", "Ben"], "typed predicate, sort and limit")
    let ana = try StaffMember.get(where: "firstName == %@ AND team.name == %@", "Ana", "Support")!
    say("get(where: \"firstName == %@ AND team.name == %@\", \"Ana\", \"Support\"): \(ana.fullName), salary \(ana.salary)")
    let zed = try StaffMember.newOrExistingEntity(where: "lastName == %@", "Zed")
    say("newOrExistingEntity(where: \"lastName == %@\", \"Zed\"): nobody matched, so a new object was inserted (isInserted = \(zed.isInserted))")
    expect(zed.isInserted, "newOrExistingEntity inserts when nothing matches")
    StaffMember.rollback()
    say("StaffMember.rollback() discards it: \(try StaffMember.count()) people")

    step("Questions SQLite answers in one statement: count, distinct values, aggregates, a dictionary.")
    say("count() = \(try StaffMember.count()); count(where: \"age >= %@\", 18) = \(try StaffMember.count(where: "age >= %@", 18))")
    say("distinctValues(of: \"lastName\", as: String.self) = \(try StaffMember.distinctValues(of: "lastName", as: String.self))")
    let mean = try StaffMember.aggregate(.average, of: "salary") ?? 0
    let top = try StaffMember.aggregate(.max, of: "salary", where: "team.name == %@", "Support") ?? 0
    say("aggregate(.average, of: \"salary\") = \(mean); aggregate(.max, of: \"salary\", where: Support) = \(top)")
    let none = try StaffMember.aggregate(.min, of: "age", where: \StaffMember.$age > 100, default: -1)
    say("aggregate(.min, of: \"age\", where: age > 100, default: -1) = \(none.map { "\($0)" } ?? "nil") (no row matched)")
    let byBadge = try StaffMember.fetchDictionary(keyedBy: "badge")
    say("fetchDictionary(keyedBy: \"badge\"): \(byBadge.count) entries; byBadge[ana.badge] is Ana: \(byBadge[ana.badge] === ana)")
    expect(byBadge[ana.badge] === ana, "the dictionary holds the registered objects")

    step("Object helpers: clone(), serialize(), delete(), and undo() on this thread's context.")
    let twin = ana.clone()
    twin.firstName = "Anabel"
    say("ana.clone() copies the attributes (badge too), not the relationships: \(twin.fullName), team = \(twin.team?.name ?? "nil")")
    let fields = ana.serialize()
    say("ana.serialize() = \(fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", "))")
    try StaffMember.commit()
    ana.salary = 99_000
    StaffMember.contextForCurrentThread.processPendingChanges()     // closes an undo group
    twin.delete()
    say("set Ana's salary to 99000, then twin.delete(): twin.isDeleted = \(twin.isDeleted)")
    StaffMember.undo()
    say("StaffMember.undo() brings the twin back: isDeleted = \(twin.isDeleted); Ana's salary still \(ana.salary)")
    StaffMember.undo()
    say("StaffMember.undo() again: Ana's salary is back to \(ana.salary)")
    expect(!twin.isDeleted && ana.salary == 48_000, "two undo groups reverted")
    twin.delete()
    try StaffMember.commit()
    say("deleted the twin for good and committed: \(try StaffMember.count()) people")

    step("deleteAll(where:): one SQL batch delete; registered objects become deleted.")
    let eva = try StaffMember.get(where: "firstName == %@", "Eva")!
    let removed = try StaffMember.deleteAll(where: "age < %@", 18)
    say("deleteAll(where: \"age < %@\", 18) removed \(removed); the Eva object we held: isDeleted = \(eva.isDeleted)")
    expect(removed == 1 && eva.isDeleted, "the batch delete reached the registered object")

    step("Objects stay on their thread: inCurrentThreadContext() gives another thread its own copy.")
    let newcomer = StaffMember.newEntity()
    newcomer.firstName = "Finn"; newcomer.lastName = "Berg"; newcomer.age = 24; newcomer.salary = 40_000
    nonisolated(unsafe) let unsaved = newcomer   // handed over only to show the refusal
    nonisolated(unsafe) let committed = ana
    onThread {
        do {
            _ = try unsaved.inCurrentThreadContext()
        } catch {
            say("(thread) an uncommitted object cannot move: \(error)")
        }
        do {
            let mine = try committed.inCurrentThreadContext()
            say("(thread) a committed one can: \(mine.fullName) in context \(mine.managedObjectContext?.name ?? "-"), a different instance: \(mine !== committed)")
        } catch {
            say("(thread) unexpected: \(error)")
        }
    }
    StaffMember.rollback()
    say("back on the main thread, StaffMember.rollback() drops the uncommitted \(newcomer.firstName): \(try StaffMember.count()) people")

    step("A background thread commits while the main thread reads.")
    let ben = try StaffMember.get(where: "firstName == %@", "Ben")!
    let ids = (ana: ana.objectID, ben: ben.objectID)   // ObjectIDs cross threads; objects do not
    ana.title = "Team lead"                            // an unsaved change on the main thread
    say("main thread: Ana earns \(ana.salary) and has an unsaved title; Ben earns \(ben.salary); \(try StaffMember.count()) people")
    let started = DispatchSemaphore(value: 0)
    let done = Flag()
    let worker = Thread {
        started.signal()
        do {
            let context = StaffMember.contextForCurrentThread      // this thread's own context
            let theirAna = try context.existingObject(with: ids.ana) as! StaffMember
            let theirBen = try context.existingObject(with: ids.ben) as! StaffMember
            theirAna.salary = 50_000
            theirBen.salary = 60_000
            try StaffMember.commit()
            for (first, last) in [("Gus", "Lind"), ("Hana", "Mori"), ("Ivo", "Petrov")] {
                Thread.sleep(forTimeInterval: 0.02)
                let hire = StaffMember.newEntity()
                hire.firstName = first; hire.lastName = last; hire.age = 30; hire.salary = 45_000
                hire.team = try Team.get(where: "name == %@", "Research")
                try StaffMember.commit()
            }
            say("(background thread, context \(context.name)) raised Ana to 50000 and Ben to 60000, then hired Gus, Hana and Ivo: four commits")
        } catch {
            say("(background thread) unexpected: \(error)")
        }
        done.set()
    }
    worker.start()
    started.wait()
    var reads = 0
    var seen: [Int] = []
    repeat {
        let count = try StaffMember.count()      // each read is an entry point: merges happen here
        reads += 1
        if seen.last != count { seen.append(count) }
        Thread.sleep(forTimeInterval: 0.002)
    } while !done.isSet
    let final = try StaffMember.count()
    if seen.last != final { seen.append(final) }
    say("meanwhile the main thread read count() \(reads + 1) times, never blocked, and saw \(seen.map(String.init).joined(separator: " -> ")) people")
    expect(final == 7, "three hires arrived")

    step("The merged result on the main thread: no refetch, no run loop, no notification wiring.")
    say("Ben, a registered object without unsaved changes, took the new value: he earns \(ben.salary)")
    expect(ben.salary == 60_000, "the unchanged registered object shows the committed value")
    let hires = try StaffMember.fetch(where: "team.name == %@", "Research", sortedBy: [SortKey("firstName")])
    say("fetch(where: \"team.name == %@\", \"Research\"): \(hires.map(\.firstName)): the new rows appear")
    expect(hires.map(\.firstName) == ["Chloe", "Dev", "Gus", "Hana", "Ivo"], "the background inserts are fetched")
    say("Ana has an unsaved change (her title): she keeps it and takes the background thread's salary: salary \(ana.salary), title \(ana.title ?? "nil")")
    expect(ana.salary == 50_000 && ana.title == "Team lead", "an object with unsaved changes keeps them and takes the other properties' new values")
    try StaffMember.commit()
    say("StaffMember.commit(): her save meets the newer row, and the default merge policy (object trump, per property) keeps both changes:")
    say("Ana earns \(ana.salary) (the background thread's) and is \(ana.title ?? "nil") (ours)")
    expect(ana.salary == 50_000 && ana.title == "Team lead", "per-property merge at commit")
    onThread {
        let check = try? StaffMember.get(where: "firstName == %@", "Ana")
        say("(a new thread, a fresh context) Ana: salary \(check?.salary ?? 0), title \(check?.title ?? "nil")")
    }
    say("the Staff store holds \(try StaffMember.count()) people; doesRequireMigration() = \(try StaffMember.doesRequireMigration())")
}

/// Runs `body` on a new thread and waits for it; the thread's context is released when it ends.
private func onThread(_ body: @escaping @Sendable () -> Void) {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    thread.start()
    finished.wait()
}

/// A flag one thread sets and another reads.
private final class Flag: @unchecked Sendable {  // every access holds the lock
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
