import Foundation
import ObjectGraph
import XCTest

/// `#Predicate` over classes given to an Xcode model file: key paths name the
/// file's attributes and relationships, as they do for models declared in Swift.
final class FoundationPredicateModelFileTests: StoreTestCase {
    typealias FileCar = ModelFileClassTests.FileCar
    typealias FilePerson = ModelFileClassTests.FilePerson

    func testAPredicateOverClassesOfAModelFileMeansItsFormatString() throws {
        let url = try Fixtures.copy("CoreDataPlus", "SampleModel_V1.sqlite", into: directory)
        let file = Fixtures.directory.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml")
        let model = try ManagedObjectModel(contentsOf: file, classes: [FileCar.self, FilePerson.self])
        let context = try PersistentContainer(name: "SampleModel", model: model, storeURL: url).viewContext

        let pairs: [(Predicate<FileCar>, String)] = [
            (#Predicate { $0.numberPlate == "300" }, "numberPlate == '300'"),
            (#Predicate { $0.maker == nil || $0.numberPlate.starts(with: "1") }, "maker == nil OR numberPlate BEGINSWITH '1'"),
            (#Predicate { $0.owner != nil && $0.numberPlate.contains("5") }, "owner != nil AND numberPlate CONTAINS '5'"),
        ]
        for (predicate, format) in pairs {
            let sort = [SortKey("numberPlate")]
            let byMacro = try context.fetch(FetchRequest<FileCar>(predicate: predicate, sortDescriptors: sort)).map(\.objectID)
            let byFormat = try context.fetch(FetchRequest<FileCar>(predicate: FetchPredicate(format), sortDescriptors: sort)).map(\.objectID)
            XCTAssertFalse(byMacro.isEmpty, format)
            XCTAssertEqual(byMacro, byFormat, format)
        }
        let owners = try context.fetch(FetchRequest<FilePerson>(predicate: #Predicate { $0.cars.contains { $0.numberPlate == "300" } }))
        XCTAssertEqual(owners.map(\.firstName), ["Faron"])
    }
}
