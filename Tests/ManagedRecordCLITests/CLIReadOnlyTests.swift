import Foundation
import XCTest

/// Read commands open the store read-only: the store's bytes are the same afterwards, for a
/// store written here and for one written by Apple's Core Data.
final class CLIReadOnlyTests: XCTestCase {
    func testReadCommandsLeaveAStoreWrittenHereByteForByteUnchanged() throws {
        let store = try CLITestStores.company(in: CLITestStores.folder()).path
        let before = CLITestStores.bytes(of: URL(fileURLWithPath: store))
        XCTAssertFalse(before[""]?.isEmpty ?? true)
        let commands: [[String]] = [
            ["fetch", store, "Employee", "age > 1", "--format", "json"], ["fetch", store, "Department", "--format", "csv"],
            ["count", store, "Employee"], ["distinct", store, "Employee", "lastName"], ["aggregate", store, "Employee", "avg", "age"],
            ["schema", store], ["check", store], ["export", store, "Employee"],
        ]
        for arguments in commands {
            try CommandLineRun.tool(arguments: arguments).succeeded()
            XCTAssertEqual(CLITestStores.bytes(of: URL(fileURLWithPath: store)), before, "\(arguments[0]) changed the store")
        }
    }

    func testReadCommandsLeaveAnAppleStoreByteForByteUnchanged() throws {
        let store = try CLITestStores.appleStore("CoreDataPlus/SampleModel_V1.sqlite", in: CLITestStores.folder()).path
        let model = CLITestStores.fixtures.appendingPathComponent("CoreDataPlus/SampleModel.xcdatamodel-contents.xml").path
        let before = CLITestStores.bytes(of: URL(fileURLWithPath: store))
        for arguments in [["count", store, "Car"], ["schema", store], ["check", store], ["fetch", store, "Person", "--format", "json"]] {
            try CommandLineRun.tool(arguments: arguments + ["--model", model]).succeeded()
            XCTAssertEqual(CLITestStores.bytes(of: URL(fileURLWithPath: store)), before, "\(arguments[0]) changed the Apple store")
        }
    }
}
