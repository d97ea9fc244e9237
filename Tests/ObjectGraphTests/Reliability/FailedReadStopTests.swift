import Foundation
import ObjectGraph
import Testing

/// A property access whose fault or to-many relationship cannot be read (an I/O error) stops
/// the process with "could not fulfill a fault", as Core Data does: the object's values are
/// unknown, and a quiet default (or an empty relationship) would be shown, and later saved,
/// as if it were the stored data. Each case runs in a child process (an exit test); the
/// parent then checks that the store holds exactly what it held before.
@Suite(.serialized)
struct FailedReadStopTests {
    /// A fresh directory with a store of one department (two employees) and one playlist whose
    /// ordered many-to-many `featured` holds tags a, b, c.
    private static func seededStore() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("FailedReadStopTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("Store.sqlite")
        let context = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
        let sales = Department(context: context)
        sales.name = "Sales"
        for name in ["Ann", "Bob"] {
            let employee = Employee(context: context)
            employee.firstName = name
            employee.age = 30
            employee.department = sales
        }
        let mix = Playlist(context: context)
        mix.title = "Mix"
        mix.featured = ["a", "b", "c"].map { label in
            let tag = Tag(context: context)
            tag.label = label
            return tag
        }
        try context.save()
        return url
    }

    /// What the store holds, read through a new container: employees with their department
    /// and age, departments, and the playlist's featured tags.
    private static func contents(_ url: URL) throws -> [String] {
        let context = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
        var request = FetchRequest<Employee>()
        request.sortDescriptors = [SortKey("firstName")]
        let employees = try context.fetch(request).map { "\($0.firstName) \($0.age) in \($0.department?.name ?? "-")" }
        let departments = try context.fetch(FetchRequest<Department>()).map(\.name)
        let featured = try context.fetch(FetchRequest<Playlist>()).flatMap { $0.featured.map(\.label) }
        let tags = try context.fetch(FetchRequest<Tag>()).map(\.label).sorted()
        return employees + departments + ["featured: \(featured)", "tags: \(tags)"]
    }

    private static let seeded = ["Ann 30 in Sales", "Bob 30 in Sales", "Sales", "featured: [\"a\", \"b\", \"c\"]",
                                 "tags: [\"a\", \"b\", \"c\"]"]

    @Test func aFaultWhoseReadFailsStopsInsteadOfTurningDeleted() async throws {
        let url = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let id = try Self.employeeURI(url, "Ann")
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent, \.standardOutputContent]) { [path = url.path as String, id = id as String] in
            let url = URL(fileURLWithPath: path)
            FaultInjector.track(url.deletingLastPathComponent())
            let container = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url)
            let coordinator = container.persistentStoreCoordinator
            let fault = container.viewContext.object(with: coordinator.managedObjectID(forURIRepresentation: URL(string: id)!)!) as! Employee
            FaultInjector.failNth(.read, 1, persistent: true)
            print("read \(fault.firstName), deleted: \(fault.isDeleted)")
        }
        let output = String(decoding: (result?.standardErrorContent ?? []) + (result?.standardOutputContent ?? []), as: UTF8.self)
        #expect(output.contains("could not fulfill a fault for x-coredata://"), "\(output)")
        #expect(output.contains("disk I/O error"), "\(output)")
        let stored = try Self.contents(url)
        #expect(stored == Self.seeded)
    }

    @Test func aFailedLoadOfAnOrderedManyToManyStopsBeforeASaveCanRewriteItsJoinTable() async throws {
        let url = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent, \.standardOutputContent]) { [path = url.path as String] in
            let url = URL(fileURLWithPath: path)
            FaultInjector.track(url.deletingLastPathComponent())
            let context = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
            let mix = try context.fetch(FetchRequest<Playlist>())[0]
            let d = Tag(context: context)
            d.label = "d"
            FaultInjector.failNth(.read, 1)
            mix.featured = mix.featured + [d]
            try context.save()
        }
        let output = String(decoding: (result?.standardErrorContent ?? []) + (result?.standardOutputContent ?? []), as: UTF8.self)
        #expect(output.contains("could not load Playlist.featured of x-coredata://"), "\(output)")
        let stored = try Self.contents(url)
        #expect(stored == Self.seeded)
    }

    @Test func aFailedLoadOfACascadedToManyStopsBeforeTheDeleteSkipsItsMembers() async throws {
        let url = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent, \.standardOutputContent]) { [path = url.path as String] in
            let url = URL(fileURLWithPath: path)
            FaultInjector.track(url.deletingLastPathComponent())
            let context = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
            let sales = try context.fetch(FetchRequest<Department>())[0]
            FaultInjector.failNth(.read, 1)
            context.delete(sales)
            try context.save()
        }
        let output = String(decoding: (result?.standardErrorContent ?? []) + (result?.standardOutputContent ?? []), as: UTF8.self)
        #expect(output.contains("could not load Department.employees of x-coredata://"), "\(output)")
        let stored = try Self.contents(url)
        #expect(stored == Self.seeded)
    }

    @Test func aRefreshWhoseReadFailsStopsInsteadOfDroppingUnsavedChanges() async throws {
        let url = try Self.seededStore()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent, \.standardOutputContent]) { [path = url.path as String] in
            let url = URL(fileURLWithPath: path)
            FaultInjector.track(url.deletingLastPathComponent())
            let context = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
            var request = FetchRequest<Employee>()
            request.predicate = try FetchPredicate("firstName == 'Ann'")
            let ann = try context.fetch(request)[0]
            ann.age = 50
            // Another process changes the row, so this reader's cached pages go stale.
            let other = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
            try other.fetch(request)[0].salary = 1
            try other.save()
            FaultInjector.failNth(.read, 1, persistent: true)
            context.refresh(ann, mergeChanges: true)
            print("refreshed: deleted \(ann.isDeleted), age \(ann.age), has changes \(context.hasChanges)")
        }
        let output = String(decoding: (result?.standardErrorContent ?? []) + (result?.standardOutputContent ?? []), as: UTF8.self)
        #expect(output.contains("could not fulfill a fault for x-coredata://"), "\(output)")
    }

    private static func employeeURI(_ url: URL, _ name: String) throws -> String {
        let context = try PersistentContainer(name: "Stop", entities: Models.everything, storeURL: url).viewContext
        var request = FetchRequest<Employee>()
        request.predicate = try FetchPredicate("firstName == %@", name)
        return try context.fetch(request)[0].objectID.uriRepresentation.absoluteString
    }
}
