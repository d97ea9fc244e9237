import Foundation
import XCTest

/// Stores written by Apple's Core Data (Tests/Fixtures, with their origin notes), opened with
/// their Xcode model.
final class CLIAppleStoreTests: XCTestCase {
    let model = CLITestStores.fixtures.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml").path
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.appleStore("CoreDataPlus/SampleModel_V1.sqlite", in: CLITestStores.folder()).path
    }

    func testCountsFollowTheEntityHierarchy() throws {
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Car", "--model", model).succeeded(), "125\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "SportCar", "--model", model).succeeded(), "10\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Car", "maker == 'FIAT'", "--model", model).succeeded(), "103\n")
    }

    func testSchemaShowsTheAppleModelWithRowCounts() throws {
        let schema = try CommandLineRun.tool("schema", store, "--model", model).succeeded()
        XCTAssertTrue(schema.contains("Car (115 rows)\n"), schema)
        XCTAssertTrue(schema.contains("ExpensiveSportCar (5 rows, sub-entity of SportCar)\n"), schema)
        XCTAssertTrue(schema.contains("Person (20 rows)\n"), schema)
        XCTAssertTrue(schema.contains("  id: UUID\n"), schema)
        XCTAssertTrue(schema.contains("  owner -> Person: to-one, inverse cars, delete rule nullify\n"), schema)
    }

    func testDistinctAndFetchReadTheAppleStore() throws {
        let makers = try CommandLineRun.tool("distinct", store, "Car", "maker", "--model", model, "--format", "csv").succeeded()
        XCTAssertEqual(makers.split(separator: "\n").first, "maker")
        XCTAssertEqual(makers.split(separator: "\n").count, 11, makers)
        let people = try CommandLineRun.tool("fetch", store, "Person", "lastName BEGINSWITH 'B'", "--sort", "firstName", "--model", model, "--format", "csv").succeeded()
        XCTAssertTrue(people.hasPrefix("firstName,id,lastName,updatedAt\nBishop,"), people)
    }

    func testCheckFindsTheAppleStoreInOrderWithItsModel() throws {
        let run = try CommandLineRun.tool("check", store, "--model", model)
        XCTAssertEqual(run.succeeded(), """
        integrity: ok
        layout: ok
        model: --model \(model); the store keeps no model of its own (written by Apple's Core Data, or before ManagedRecord kept it)
        version hashes: match
        migration: not needed
        ok

        """)
    }

    func testCheckSaysAnOlderStoreNeedsMigrationAndExitsNonZero() throws {
        let older = try CLITestStores.appleStore("MigrationRevised/CoreDataMigration_Example_1.sqlite", in: CLITestStores.folder()).path
        let newer = CLITestStores.fixtures.appendingPathComponent("MigrationRevised/v3.xcdatamodel-contents.xml").path
        let run = try CommandLineRun.tool("check", older, "--model", newer)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("migration: needed"), run.stdout)
        XCTAssertTrue(run.stdout.hasSuffix("problems found\n"), run.stdout)
    }

    func testSchemaWithoutAModelReadsTheCompiledModelTheStoreKeeps() throws {
        let schema = try CommandLineRun.tool("schema", store).succeeded()
        XCTAssertTrue(schema.contains("Car (115 rows)\n"), schema)
        XCTAssertTrue(schema.contains("ExpensiveSportCar (5 rows, sub-entity of SportCar)\n"), schema)
        XCTAssertTrue(schema.contains("  id: UUID\n"), schema)
    }
}
