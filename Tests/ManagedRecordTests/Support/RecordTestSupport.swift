import Foundation
import ManagedRecord
import XCTest

final class Company: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Person.$company, deleteRule: .cascade) var people: Set<Person>
    override class var modelName: String? { "Staff" }
}

class Person: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var badge: UUID = UUID()
    @Relationship var company: Company?
    override class var modelName: String? { "Staff" }
}

final class Boss: Person {
    @Attribute var level: Int = 1
}

final class Gadget: ManagedObject {
    @Attribute var label: String = ""
    override class var modelName: String? { "Gadgets" }
}

/// A fresh temporary folder per test, with the "Staff" model set up in it.
class RecordTestCase: XCTestCase {
    var folder: URL!
    var storeURL: URL { folder.appendingPathComponent("Staff.sqlite") }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mr-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try ManagedRecord.setUp(model: "Staff", entities: [Company.self, Person.self, Boss.self], storeURL: storeURL)
    }

    override func tearDownWithError() throws {
        ManagedRecord.tearDown(model: "Staff")
        ManagedRecord.tearDown(model: "Gadgets")
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `body` on a new thread and waits for it.
    func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }
}
