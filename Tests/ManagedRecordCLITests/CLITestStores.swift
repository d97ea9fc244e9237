import Foundation
import ObjectGraph
import XCTest

struct Measurements: Codable, Equatable {
    var width: Double
    var height: Double
    var labels: [String]
}

/// One attribute of every type (and optionals), and every relationship kind: to-one with a
/// to-many inverse (`maker`), many-to-many (`tags`), ordered to-many (`parts`).
final class Gadget: ManagedObject {
    @Attribute var sku: String = ""
    @Attribute var flag: Bool = false
    @Attribute var count: Int = 0
    @Attribute var small: Int16 = 0
    @Attribute var medium: Int32 = 0
    @Attribute var large: Int64 = 0
    @Attribute var ratio: Double = 0
    @Attribute var score: Float = 0
    @Attribute var price: Decimal = 0
    @Attribute var released: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var payload: Data = Data()
    @Attribute var serial: UUID = UUID()
    @Attribute var homepage: URL = URL(string: "https://example.com")!
    @Attribute var size: Measurements = Measurements(width: 0, height: 0, labels: [])
    @Attribute var note: String? = nil
    @Attribute var maybeCount: Int? = nil
    @Attribute var maybeDate: Date? = nil
    @Relationship var maker: Maker?
    @Relationship(inverse: \Tag.$gadgets) var tags: Set<Tag>
    @Relationship(ordered: true, inverse: \Part.$gadget, deleteRule: .cascade) var parts: [Part]
}

final class Maker: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Gadget.$maker) var gadgets: Set<Gadget>
}

final class Tag: ManagedObject {
    @Attribute var label: String = ""
    @Relationship var gadgets: Set<Gadget>
}

final class Part: ManagedObject {
    @Attribute var code: String = ""
    @Relationship var gadget: Gadget?
}

final class Department: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var budget: Double = 0
    @Relationship(inverse: \Employee.$department, deleteRule: .cascade) var employees: Set<Employee>
}

class Employee: ManagedObject {
    @Attribute var firstName: String = ""
    @Attribute var lastName: String = ""
    @Attribute var age: Int = 0
    @Attribute var salary: Decimal = 0
    @Attribute var hired: Date? = nil
    @Relationship var department: Department?
}

final class Manager: Employee {
    @Attribute var level: Int = 1
}

let gadgetEntities: [ManagedObject.Type] = [Gadget.self, Maker.self, Tag.self, Part.self]
let companyEntities: [ManagedObject.Type] = [Department.self, Employee.self, Manager.self]

/// Temporary folders and the stores the CLI tests run on, written through the public API.
enum CLITestStores {
    /// A new folder inside this test process's own temporary folder, which is removed when
    /// the test bundle finishes (each run used to leave 65 folders behind).
    static func folder() throws -> URL {
        let url = processFolder.appendingPathComponent(String(UUID().uuidString.prefix(8)))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static let processFolder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cli-tests-\(UUID().uuidString.prefix(8))")
        FolderRemoval.atEndOfTestBundle(url)
        return url
    }()

    /// Tests/Fixtures, the Apple stores with their origin notes.
    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    }

    /// A copy of an Apple fixture store in `folder`.
    static func appleStore(_ path: String, in folder: URL) throws -> URL {
        let copy = folder.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(path), to: copy)
        return copy
    }

    /// A company store: Sales (John 42, Jane 35), Engineering (Ann 58, a manager; Bob 29; Cara 51).
    static func company(in folder: URL, filled: Bool = true) throws -> URL {
        let url = folder.appendingPathComponent("Company.sqlite")
        let container = try PersistentContainer(name: "Company", entities: companyEntities, storeURL: url)
        if filled { try fillCompany(container.viewContext) }
        container.persistentStoreCoordinator.close()
        return url
    }

    /// Saves the company's two departments and five employees in `context`.
    static func fillCompany(_ context: ManagedObjectContext) throws {
        let sales = Department(context: context)
        sales.name = "Sales"; sales.budget = 250_000
        let engineering = Department(context: context)
        engineering.name = "Engineering"; engineering.budget = 900_000
        let people: [(String, String, Int, Decimal, Department, Bool)] = [
            ("John", "Smith", 42, 52_000, sales, false), ("Jane", "Doe", 35, 48_000.5, sales, false),
            ("Ann", "Lee", 58, 91_000, engineering, true), ("Bob", "Wu", 29, 61_000, engineering, false),
            ("Cara", "Jones", 51, 77_000, engineering, false),
        ]
        for (first, last, age, salary, department, manager) in people {
            let person = manager ? Manager(context: context) : Employee(context: context)
            person.firstName = first; person.lastName = last; person.age = age; person.salary = salary
            person.department = department
            person.hired = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(age) * 86_400)
        }
        try context.save()
    }

    /// A model file of one `Contact` entity with `attributes` (model-file XML elements).
    static func contactModel(_ attributes: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Contact" representedClassName="Contact" syncable="YES">
            \(attributes)
            </entity>
            </model>
            """.utf8)
    }

    /// A gadget store: three gadgets with every attribute type and relationship kind set.
    static func gadgets(in folder: URL, name: String = "Gadgets.sqlite", filled: Bool = true) throws -> URL {
        let url = folder.appendingPathComponent(name)
        let container = try PersistentContainer(name: "Gadgets", entities: gadgetEntities, storeURL: url)
        let context = container.viewContext
        if filled {
            let acme = Maker(context: context)
            acme.name = "Acme"
            let globex = Maker(context: context)
            globex.name = "Globex, \"Inc\""
            let tags = ["red", "blue", "green"].map { label in
                let tag = Tag(context: context)
                tag.label = label
                return tag
            }
            for index in 1...3 {
                let gadget = Gadget(context: context)
                gadget.sku = "G-\(index)"
                gadget.flag = index % 2 == 0
                gadget.count = index * 1_000_000_007
                gadget.small = Int16(-index * 300)
                gadget.medium = Int32(index * 70_000)
                gadget.large = Int64(index) * 9_000_000_000_000
                gadget.ratio = 1.0 / Double(index + 2)
                gadget.score = Float(index) * 0.25
                gadget.price = Decimal(string: "\(index)9.99")!
                gadget.released = Date(timeIntervalSinceReferenceDate: 700_000_000.25 * Double(index))
                gadget.payload = Data([UInt8(index), 0, 255, 10])
                gadget.serial = UUID(uuidString: "00000000-0000-0000-0000-00000000000\(index)")!
                gadget.homepage = URL(string: "https://example.com/g/\(index)?q=a%20b")!
                gadget.size = Measurements(width: Double(index), height: 2.5, labels: ["a", "b\(index)"])
                gadget.note = index == 2 ? nil : "line one\nline \"two\", with comma"
                gadget.maybeCount = index == 3 ? nil : index
                gadget.maybeDate = index == 1 ? Date(timeIntervalSinceReferenceDate: 1) : nil
                gadget.maker = index == 3 ? globex : acme
                gadget.tags = index == 1 ? [] : Set(tags.prefix(index))
                gadget.parts = (1...index).reversed().map { number in
                    let part = Part(context: context)
                    part.code = "P-\(index)-\(number)"
                    return part
                }
            }
        }
        try context.save()
        container.persistentStoreCoordinator.close()
        return url
    }

    /// The bytes of the store and of its `-wal` and `-journal` files: a missing companion
    /// counts as empty (a read-only SQLite connection to a WAL store may create an empty
    /// `-wal`, and a `-shm` index, which hold nothing of the store).
    static func bytes(of store: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-journal"] {
            files[suffix] = FileManager.default.contents(atPath: store.path + suffix) ?? Data()
        }
        return files
    }
}

/// Removes a folder when the XCTest bundle finishes.
private final class FolderRemoval: NSObject, XCTestObservation {
    private let folder: URL

    private init(_ folder: URL) { self.folder = folder }

    static func atEndOfTestBundle(_ folder: URL) {
        XCTestObservationCenter.shared.addTestObserver(FolderRemoval(folder))
    }

    func testBundleDidFinish(_ testBundle: Bundle) {
        try? FileManager.default.removeItem(at: folder)
    }
}
