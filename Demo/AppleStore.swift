import Foundation
import ManagedRecord

/// The class Xcode generates for the Apple model's entity Car (its representedClassName),
/// in this library's terms: only the attributes it uses, no override.
final class Car: ManagedObject {
    @Attribute var numberPlate: String = ""
    @Attribute var maker: String? = nil
    @Relationship var owner: ManagedObject?      // Person, which has no class here
}

extension DemoSection {
    static let appleStore = DemoSection("apple", "a store written by Apple's Core Data, opened with its Xcode model") { demo in
        // Tests/Fixtures/CoreDataPlus: a store and model from alemar11/CoreDataPlus (see its README.md).
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/CoreDataPlus")
        let original = fixtures.appendingPathComponent("SampleModel_V1.sqlite")
        let modelFile = fixtures.appendingPathComponent("SampleModel.xcdatamodel-contents.xml")
        guard FileManager.default.fileExists(atPath: original.path) else {
            fatalError("the Apple fixture \(original.path) is missing: run the demo from the repository (swift run Demo)")
        }
        // The seed: a copy of the Apple store (opening a store in WAL mode writes beside it).
        let seed = demo.folder.appendingPathComponent("SampleModel_V1.sqlite")
        try FileManager.default.copyItem(at: original, to: seed)
        let store = demo.folder.appendingPathComponent("SampleModel.sqlite")

        step("Load the Xcode model file; entities without a Swift class are plain ManagedObjects.")
        let model = try ManagedObjectModel(contentsOf: modelFile)
        say("model file: \(modelFile.path)")
        for entity in model.entities {
            let parent = entity.superentity.map { " (a sub-entity of \($0.name))" } ?? ""
            say("\(entity.name)\(parent): \(entity.properties.map(\.name).joined(separator: ", "))")
        }

        do {
            let kept = try ManagedObjectModel(storeURL: seed)
            say("the store keeps a compiled copy of its model too (Z_MODELCACHE), read here: \(kept.entities.map(\.name).sorted().joined(separator: ", "))")
            expect(kept.entitiesByName.keys.sorted() == model.entitiesByName.keys.sorted(), "the kept model has the model file's entities")
        } catch let error as StoreError {
            say("ManagedObjectModel(storeURL:) cannot help here: \(error.code), as Apple's stores keep a compiled model only")
            expect(error.code == .noModel, "an Apple store does not describe its model in a form read here")
        }

        step("Set up ManagedRecord from the model file, with a copy of the Apple store as the seed store.")
        let manager = try ManagedRecord.setUp(modelAt: modelFile, classes: [Car.self], name: "SampleModel", storeURL: store, seedStore: seed)
        defer { ManagedRecord.tearDown(model: "SampleModel") }
        say("ManagedRecord.setUp(modelAt: modelFile, classes: [Car.self], name: \"SampleModel\", storeURL: ..., seedStore: ...)")
        say("Car is a Swift class named after the entity's representedClassName; its sub-entities share it; Person has none")
        expect(manager.model.entitiesByName["SportCar"]?.managedClass == Car.self, "a class-less sub-entity shares its parent's class")

        step("Car answers the class-level helpers: count, fetch(where:), distinctValues, aggregate.")
        let cars = try Car.count()
        let fiats = try Car.count(where: "maker == %@", "FIAT")
        say("Car.count() = \(cars) (sub-entities SportCar and ExpensiveSportCar included), \(fiats) of them FIATs")
        expect(cars == 125 && fiats == 103, "the fixture holds 125 cars, 103 FIATs")
        let plain = try Car.fetchAll(includesSubentities: false).count
        say("Car.fetchAll(includesSubentities: false).count = \(plain)")
        expect(plain == 115, "115 of them are plain Cars")
        say("makers: \(try Car.distinctValues(of: "maker", as: String.self))")
        for car in try Car.fetch(where: "maker != %@", "FIAT", sortedBy: [SortKey("numberPlate")], limit: 3) {
            let owner = car.owner?.value(forKey: "lastName") as? String ?? "nobody"
            say("\(car.entity.name) \(car.numberPlate): \(car.maker ?? "?"), owned by \(owner)")
        }

        step("Person has no class: ManagedRecord.entity(\"Person\") gives the same helpers, objects read by key.")
        let people = try ManagedRecord.entity("Person")
        for person in try people.fetchAll(sortedBy: [SortKey("lastName")], limit: 3) {
            let name = "\(person.value(forKey: "firstName") as? String ?? "?") \(person.value(forKey: "lastName") as? String ?? "?")"
            let owned = (person.value(forKey: "cars") as? Set<ManagedObject>)?.count ?? 0
            say("\(name), \(owned) car(s)")
        }
        let grace = try people.newEntity()
        try grace.setValue("Grace", forKey: "firstName")
        try grace.setValue("Hopper", forKey: "lastName")
        try grace.setValue(UUID(), forKey: "id")
        try grace.setValue(Date(), forKey: "updatedAt")
        try people.commit()
        say("a new Person by key, then people.commit(): \(try people.count()) people")
        expect(try people.count() == 21, "the fixture's 20 people and Grace")

        step("Another thread commits a car in its own context; this thread's context sees it.")
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        Thread.detachNewThread {
            defer { done.signal() }
            do {
                let car = Car.newEntity()
                car.numberPlate = "GH-1906"
                car.maker = "Hopper Motors"
                try car.setValue(try people.get(where: "lastName == %@", "Hopper"), forKey: "owner")
                try Car.commit()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        done.wait()
        expect(failure.withLock { $0 } == nil, "the other thread's commit succeeds")
        let hoppers = try Car.fetch(where: "owner.lastName == %@", "Hopper")
        say("on this thread: Car.count() = \(try Car.count()), Grace's car: \(hoppers.map(\.numberPlate))")
        expect(hoppers.map(\.numberPlate) == ["GH-1906"], "the commit reached this thread's context")
        demo.shell("count", store.path, "Car", "maker == 'FIAT'", "--model", modelFile.path)
        demo.shell("check", store.path, "--model", modelFile.path)
    }
}
