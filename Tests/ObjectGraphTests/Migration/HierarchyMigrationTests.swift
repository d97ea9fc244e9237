import Foundation
import ObjectGraph
import XCTest

// Version 1: Dog and Cat are root entities in tables of their own; an Owner points at both.
final class DogV1: ManagedObject {
    override class var entityName: String { "Dog" }
    @Attribute var name: String = ""
    @Attribute var barks: Bool = true
}

final class CatV1: ManagedObject {
    override class var entityName: String { "Cat" }
    @Attribute var name: String = ""
    @Attribute var lives: Int = 9
}

final class PetOwnerV1: ManagedObject {
    override class var entityName: String { "PetOwner" }
    @Attribute var name: String = ""
    @Relationship var dog: DogV1?
    @Relationship var cat: CatV1?
}

// Version 2: both are sub-entities of a new Animal, sharing its table.
class AnimalV2: ManagedObject {
    override class var entityName: String { "Animal" }
    @Attribute var name: String = ""
}

final class DogV2: AnimalV2 {
    override class var entityName: String { "Dog" }
    @Attribute var barks: Bool = true
}

final class CatV2: AnimalV2 {
    override class var entityName: String { "Cat" }
    @Attribute var lives: Int = 9
}

final class PetOwnerV2: ManagedObject {
    override class var entityName: String { "PetOwner" }
    @Attribute var name: String = ""
    @Relationship var dog: DogV2?
    @Relationship var cat: CatV2?
}

/// Entities that move into another hierarchy: rows of two old tables end up in one, keys
/// are shifted so they stay unique, and references follow the shift.
final class HierarchyMigrationTests: StoreTestCase {
    func testTwoRootEntitiesMovedUnderANewParentShareItsTableAndKeepTheirLinks() throws {
        do {
            let context = try makeContainer([DogV1.self, CatV1.self, PetOwnerV1.self]).viewContext
            for index in 1...3 {
                let dog = DogV1(context: context); dog.name = "Dog \(index)"; dog.barks = index != 2
                let cat = CatV1(context: context); cat.name = "Cat \(index)"; cat.lives = index
                let owner = PetOwnerV1(context: context); owner.name = "Owner \(index)"
                owner.dog = dog
                owner.cat = cat
            }
            try context.save()
        }
        let container = try makeContainer([AnimalV2.self, DogV2.self, CatV2.self, PetOwnerV2.self])
        let context = container.viewContext
        let animals = try fetchAll(AnimalV2.self, in: context, sortedBy: "name")
        XCTAssertEqual(animals.map(\.name), ["Cat 1", "Cat 2", "Cat 3", "Dog 1", "Dog 2", "Dog 3"])
        XCTAssertEqual(Set(animals.map(\.objectID)).count, 6, "keys stay unique in the shared table")
        let owners = try fetchAll(PetOwnerV2.self, in: context, sortedBy: "name")
        XCTAssertEqual(owners.map { $0.dog?.name }, ["Dog 1", "Dog 2", "Dog 3"], "to-ones follow shifted keys")
        XCTAssertEqual(owners.map { $0.cat?.name }, ["Cat 1", "Cat 2", "Cat 3"])
        XCTAssertEqual(owners.map { $0.cat?.lives }, [1, 2, 3])
        XCTAssertEqual(owners.map { $0.dog?.barks }, [true, false, true])

        let file = try SQLiteFile(storeURL)
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM ZANIMAL"), .integer(6))
        XCTAssertFalse(try file.tableNames().contains("ZDOG"))
        XCTAssertFalse(try file.tableNames().contains("ZCAT"))
        XCTAssertEqual(try file.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Animal'"), .integer(6))
        try assertStoreIntegrity(storeURL)

        let puppy = DogV2(context: context)
        puppy.name = "Puppy"
        try context.save()
        XCTAssertEqual(try SQLiteFile(storeURL).scalar("SELECT Z_PK FROM ZANIMAL WHERE ZNAME = 'Puppy'"), .integer(7), "new keys come after the shifted ones")
    }
}
