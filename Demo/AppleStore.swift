import Foundation
import ObjectGraph

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
        let store = demo.folder.appendingPathComponent("SampleModel_V1.sqlite")
        try FileManager.default.copyItem(at: original, to: store)

        step("Load the Xcode model file; entities without a Swift class are plain ManagedObjects.")
        let model = try ManagedObjectModel(contentsOf: modelFile)
        say("model file: \(modelFile.path)")
        for entity in model.entities {
            let parent = entity.superentity.map { " (a sub-entity of \($0.name))" } ?? ""
            say("\(entity.name)\(parent): \(entity.properties.map(\.name).joined(separator: ", "))")
        }
        do {
            _ = try ManagedObjectModel(storeURL: store)
        } catch let error as StoreError {
            say("ManagedObjectModel(storeURL:) cannot help here: \(error.code), as Apple's stores keep a compiled model only")
            expect(error.code == .noModel, "an Apple store does not describe its model in a form read here")
        }

        step("Open the copy of the Apple store with that model, and fetch by key.")
        let container = try PersistentContainer(name: "SampleModel", model: model, storeURL: store)
        let context = container.viewContext
        let cars = try context.count(for: FetchRequest<ManagedObject>(entityName: "Car"))
        var fiat = FetchRequest<ManagedObject>(entityName: "Car")
        fiat.predicate = try FetchPredicate("maker == %@", "FIAT")
        let fiats = try context.count(for: fiat)
        say("\(cars) cars (sub-entities SportCar and ExpensiveSportCar included), \(fiats) of them FIATs")
        expect(cars == 125 && fiats == 103, "the fixture holds 125 cars, 103 FIATs")
        var people = FetchRequest<ManagedObject>(entityName: "Person")
        people.sortDescriptors = [SortKey("lastName")]
        people.fetchLimit = 3
        for person in try context.fetch(people) {
            let name = "\(person.value(forKey: "firstName") as? String ?? "?") \(person.value(forKey: "lastName") as? String ?? "?")"
            let owned = (person.value(forKey: "cars") as? Set<ManagedObject>)?.count ?? 0
            say("\(name), \(owned) car(s), id \(person.value(forKey: "id") as? UUID ?? UUID())")
        }

        step("Write to it: insert by entity name, set values by key, save in Core Data's layout.")
        let newcomer = try context.insertNewObject(forEntityName: "Person")
        try newcomer.setValue("Grace", forKey: "firstName")
        try newcomer.setValue("Hopper", forKey: "lastName")
        try newcomer.setValue(UUID(), forKey: "id")
        try newcomer.setValue(Date(), forKey: "updatedAt")
        try context.save()
        let persons = try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        say("saved; Person now has \(persons) rows")
        expect(persons == 21, "the fixture's 20 people and Grace")
        demo.shell("count", store.path, "Car", "maker == 'FIAT'", "--model", modelFile.path)
        demo.shell("check", store.path, "--model", modelFile.path)
    }
}
