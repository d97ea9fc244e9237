import Foundation
import XCTest

/// fetch, count, distinct and aggregate on a store written here, opened without a model.
final class CLIQueryTests: XCTestCase {
    var store = ""

    override func setUpWithError() throws {
        store = try CLITestStores.company(in: CLITestStores.folder()).path
    }

    func testFetchAsJSONLinesFiltersThroughARelationshipSortsAndLimits() throws {
        let run = try CommandLineRun.tool("fetch", store, "Employee", "age > 30 AND department.name == 'Engineering'",
                                          "--sort", "lastName,-age", "--limit", "2", "--format", "jsonl")
        let lines = run.succeeded().split(separator: "\n")
        XCTAssertEqual(lines.count, 2, run.stdout)
        let objects = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(objects.map { $0["lastName"] as? String }, ["Jones", "Lee"])
        XCTAssertEqual(objects[1]["entity"] as? String, "Manager", "a sub-entity's object says its entity")
        XCTAssertTrue(lines[0].hasPrefix("{\"@id\":\"Employee/p5\",\"age\":51,"), "keys are sorted: \(lines[0])")
        // Without --related-by, the department nested, with its identity (what import reads).
        let department = try XCTUnwrap(objects[0]["department"] as? [String: Any], run.stdout)
        XCTAssertEqual(department["name"] as? String, "Engineering")
        XCTAssertEqual(department["budget"] as? Int, 900_000)
        XCTAssertTrue((department["@id"] as? String)?.hasPrefix("Department/p") ?? false, run.stdout)
        XCTAssertFalse(run.stdout.contains("x-coredata:"), run.stdout)
        let named = try CommandLineRun.tool("fetch", store, "Employee", "lastName == 'Jones'", "--format", "jsonl", "--related-by", "Department=name")
        XCTAssertTrue(named.succeeded().contains("\"department\":\"Engineering\""), named.stdout)
    }

    func testFetchAsATableHasAHeaderAlignedColumnsAndARowCount() throws {
        let run = try CommandLineRun.tool("fetch", store, "Employee", "salary > 60000", "--sort=-age")
        XCTAssertEqual(run.succeeded(), """
        firstName  lastName  age  salary  hired
        ---------  --------  ---  ------  --------------------
        Ann        Lee       58   91000   2023-05-05T20:26:40Z
        Cara       Jones     51   77000   2023-04-28T20:26:40Z
        Bob        Wu        29   61000   2023-04-06T20:26:40Z
        (3 rows)

        """)
    }

    func testFetchAsCSVHasAHeaderAndOneRowPerObject() throws {
        let run = try CommandLineRun.tool("fetch", store, "Department", "--sort", "name", "--format", "csv")
        XCTAssertEqual(run.succeeded(), "name,budget\nEngineering,900000\nSales,250000\n")
    }

    func testCountPrintsOneNumber() throws {
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee").succeeded(), "5\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Employee", "age BETWEEN {30, 52}").succeeded(), "3\n")
        XCTAssertEqual(try CommandLineRun.tool("count", store, "Manager").succeeded(), "1\n")
    }

    func testDistinctPrintsSortedValuesOfAKeyPath() throws {
        XCTAssertEqual(try CommandLineRun.tool("distinct", store, "Employee", "department.name", "--format", "jsonl").succeeded(),
                       "\"Engineering\"\n\"Sales\"\n")
        XCTAssertEqual(try CommandLineRun.tool("distinct", store, "Employee", "lastName", "age < 40", "--format", "csv").succeeded(),
                       "lastName\nDoe\nWu\n")
    }

    func testAggregatesKeepTheAttributesType() throws {
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "sum", "age").succeeded(), "215\n")
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "avg", "age", "department.name == 'Sales'").succeeded(), "38.5\n")
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "sum", "salary").succeeded(), "329000.5\n")
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "max", "hired").succeeded(), "\"2023-05-05T20:26:40Z\"\n")
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "min", "age", "age > 100").succeeded(), "null\n")
    }

    func testSchemaListsEntitiesWithRowCountsAttributeTypesAndRelationships() throws {
        let schema = try CommandLineRun.tool("schema", store).succeeded()
        XCTAssertTrue(schema.contains("Department (2 rows)\n  name: String\n  budget: Double\n  employees -> Employee: to-many, inverse department, delete rule cascade\n"), schema)
        XCTAssertTrue(schema.contains("Employee (4 rows)\n"), schema)
        XCTAssertTrue(schema.contains("Manager (1 row, sub-entity of Employee)\n"), schema)
        XCTAssertTrue(schema.contains("  hired: Date, optional\n"), schema)
        XCTAssertTrue(schema.contains("  level: Integer 64\n"), schema)
    }
}

extension CLIQueryTests {
    /// An imported date of 1e20 seconds (read as milliseconds: 1e17 s, year 3e9) used to stop
    /// the tool converting it to an Int64 when printed.
    func testADateFarFromNowPrintsInEveryFormatAndAggregate() throws {
        let imported = try CommandLineRun.tool(arguments: ["import", store, "Employee", "-"],
                                               input: #"[{"firstName": "Far", "lastName": "Future", "age": 30, "salary": 1, "hired": 1e20}]"#)
        XCTAssertTrue(imported.succeeded().hasPrefix("inserted 1"), imported.stdout)
        let json = try CommandLineRun.tool("fetch", store, "Employee", "firstName == 'Far'", "--format", "json").succeeded()
        let object = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])?.first, json)
        let hired = try XCTUnwrap(object["hired"] as? String, json)
        XCTAssertTrue(hired.hasPrefix("+3168"), hired)
        for format in ["table", "csv"] {
            XCTAssertTrue(try CommandLineRun.tool("fetch", store, "Employee", "firstName == 'Far'", "--format", format).succeeded().contains("Future"))
        }
        XCTAssertEqual(try CommandLineRun.tool("aggregate", store, "Employee", "max", "hired").succeeded(), "\"\(hired)\"\n")
        let exported = try CommandLineRun.tool("export", store, "Employee", "firstName == 'Far'").succeeded()
        XCTAssertTrue(exported.contains("\"hired\" : \"\(hired)\"") || exported.contains("\"hired\":\"\(hired)\""), exported)
    }
}
