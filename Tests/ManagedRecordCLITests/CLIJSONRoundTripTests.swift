import Foundation
import ObjectGraph
import XCTest

/// export from a store, import into an empty store, compare: every attribute type, and each
/// relationship kind (to-one, to-many, many-to-many, ordered to-many), through the CLI.
final class CLIJSONRoundTripTests: XCTestCase {
    let relatedBy = ["--related-by", "Gadget=sku", "--related-by", "Maker=name", "--related-by", "Tag=label", "--related-by", "Part=code"]
    let sortKeys = ["Gadget": "sku", "Maker": "name", "Tag": "label", "Part": "code"]

    func testExportThenImportIntoAnEmptyStoreGivesTheSameObjectsValuesAndRelationships() throws {
        let folder = try CLITestStores.folder()
        let source = try CLITestStores.gadgets(in: folder).path
        let target = try CLITestStores.gadgets(in: folder, name: "Empty.sqlite", filled: false).path

        // Destinations first, without relationships; then gadgets, whose keys name them.
        for entity in ["Maker", "Tag", "Part"] {
            let file = folder.appendingPathComponent("\(entity).json").path
            try CommandLineRun.tool(arguments: ["export", source, entity, "--relationships", "omit", "--output", file]).succeeded()
            let report = try CommandLineRun.tool(arguments: ["import", target, entity, file] + relatedBy).succeeded()
            XCTAssertTrue(report.hasPrefix("inserted "), report)
        }
        let gadgets = try CommandLineRun.tool(arguments: ["export", source, "Gadget"] + relatedBy).succeeded()
        // The makers, tags and parts the gadgets now point at count as updated (through the inverses).
        XCTAssertEqual(try CommandLineRun.tool(arguments: ["import", target, "Gadget", "-"] + relatedBy, input: gadgets).succeeded(),
                       "inserted 3, updated 11, skipped 0\n")

        // Every entity, relationships as keys, exports the same text from both stores.
        for (entity, key) in sortKeys {
            let arguments = ["export", "--sort", key] + relatedBy
            let before = try CommandLineRun.tool(arguments: [arguments[0], source, entity] + arguments.dropFirst()).succeeded()
            let after = try CommandLineRun.tool(arguments: [arguments[0], target, entity] + arguments.dropFirst()).succeeded()
            XCTAssertEqual(after, before, entity)
            XCTAssertTrue(before.hasPrefix("[\n{"), before)
        }

        // And the typed values, read back through the classes.
        let original = try gadgetValues(source)
        let imported = try gadgetValues(target)
        XCTAssertEqual(original.count, 3)
        XCTAssertEqual(imported, original)
    }

    /// No entity has a related-by attribute: makers, tags and parts are nested in the gadgets,
    /// each with its identity, so the export imports in one step and a maker or tag shared
    /// by several gadgets is imported once (it used to be written as an object ID URI, which
    /// failed with unknownReference in a new store).
    func testByDefaultTheExportOfAnEntityImportsIntoAnEmptyStoreWithItsRelatedObjects() throws {
        let folder = try CLITestStores.folder()
        let source = try CLITestStores.gadgets(in: folder).path
        let target = try CLITestStores.gadgets(in: folder, name: "Empty.sqlite", filled: false).path

        let exported = try CommandLineRun.tool("export", source, "Gadget").succeeded()
        XCTAssertFalse(exported.contains("x-coredata:"), exported)
        let gadgets = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [[String: Any]])
        let maker = try XCTUnwrap(gadgets.first?["maker"] as? [String: Any], exported)
        XCTAssertEqual(maker["name"] as? String, "Acme", "a person reads the maker, not an opaque URI")
        XCTAssertEqual(try CommandLineRun.tool(arguments: ["import", target, "Gadget", "-"], input: exported).succeeded(),
                       "inserted 14, updated 0, skipped 0\n", "3 gadgets, 2 makers, 3 tags, 6 parts")

        for (entity, count) in [("Gadget", "3"), ("Maker", "2"), ("Tag", "3"), ("Part", "6")] {
            XCTAssertEqual(try CommandLineRun.tool("count", target, entity).succeeded(), count + "\n", entity)
        }
        XCTAssertEqual(try gadgetValues(target), try gadgetValues(source), "values (sub-second dates included) and relationships")
        // And the export of the copy is the export of the original but for the identities' keys.
        let again = try CommandLineRun.tool("export", target, "Gadget", "--sort", "sku", "--relationships", "nested:0").succeeded()
        XCTAssertEqual(Self.withoutIdentities(again),
                       Self.withoutIdentities(try CommandLineRun.tool("export", source, "Gadget", "--sort", "sku").succeeded()))
    }

    func testByDefaultEmployeesAndTheirDepartmentsAndSubEntitiesRoundTrip() throws {
        let folder = try CLITestStores.folder()
        let source = try CLITestStores.company(in: folder).path
        let target = try CLITestStores.company(in: CLITestStores.folder(), filled: false).path
        let exported = try CommandLineRun.tool("export", source, "Employee").succeeded()
        XCTAssertEqual(try CommandLineRun.tool(arguments: ["import", target, "Employee", "-"], input: exported).succeeded(),
                       "inserted 7, updated 0, skipped 0\n")
        for store in [source, target] {
            XCTAssertEqual(try CommandLineRun.tool("count", store, "Manager").succeeded(), "1\n")
            XCTAssertEqual(try CommandLineRun.tool("count", store, "Department").succeeded(), "2\n")
        }
        let listing = ["--sort", "lastName", "--format", "jsonl", "--related-by", "Department=name"]
        XCTAssertEqual(try CommandLineRun.tool(arguments: ["fetch", target, "Employee"] + listing).succeeded(),
                       try CommandLineRun.tool(arguments: ["fetch", source, "Employee"] + listing).succeeded())
    }

    /// Object ID URIs only with `--relationships uris`: they name objects of this store only.
    func testObjectIDURIsAreWrittenOnlyWhenAskedAndMeanNothingInAnotherStore() throws {
        let folder = try CLITestStores.folder()
        let source = try CLITestStores.company(in: folder).path
        let target = try CLITestStores.company(in: CLITestStores.folder(), filled: false).path
        let uris = try CommandLineRun.tool("export", source, "Employee", "--relationships", "uris").succeeded()
        XCTAssertTrue(uris.contains("\"department\":\"x-coredata://"), uris)
        XCTAssertFalse(uris.contains("@id"), uris)
        let run = try CommandLineRun.tool(arguments: ["import", target, "Employee", "-"], input: uris)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("not an object of this store"), run.stderr)
        XCTAssertEqual(try CommandLineRun.tool("count", target, "Employee").succeeded(), "0\n")
    }

    /// The text without `"@id":"..."` members (the copy's objects have their own keys).
    static func withoutIdentities(_ text: String) -> String {
        text.replacingOccurrences(of: #""@id":"[^"]*",?"#, with: "", options: .regularExpression)
    }

    func testTheExportIsValidJSONAndStableFromRunToRun() throws {
        let source = try CLITestStores.gadgets(in: CLITestStores.folder()).path
        let first = try CommandLineRun.tool(arguments: ["export", source, "Gadget", "--sort", "sku"] + relatedBy).succeeded()
        let second = try CommandLineRun.tool(arguments: ["export", source, "Gadget", "--sort", "sku"] + relatedBy).succeeded()
        XCTAssertEqual(first, second)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [[String: Any]])
        XCTAssertEqual(parsed.map { $0["sku"] as? String }, ["G-1", "G-2", "G-3"])
        XCTAssertEqual(parsed[2]["parts"] as? [String], ["P-3-3", "P-3-2", "P-3-1"], "an ordered to-many keeps its order")
        XCTAssertEqual(parsed[2]["maker"] as? String, "Globex, \"Inc\"")
    }

    func testAnImportWithABadValueNamesTheRecordAndKeyAndChangesNothing() throws {
        let folder = try CLITestStores.folder()
        let target = try CLITestStores.gadgets(in: folder, name: "Empty.sqlite", filled: false)
        let before = CLITestStores.bytes(of: target)[""]
        let run = try CommandLineRun.tool(arguments: ["import", target.path, "Maker", "-"], input: #"[{"name": "A"}, {"name": true}]"#)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("name"), run.stderr)
        XCTAssertEqual(try CommandLineRun.tool("count", target.path, "Maker").succeeded(), "0\n")
        XCTAssertNotNil(before)
    }

    private struct GadgetValues: Equatable {
        let sku: String, flag: Bool, count: Int, small: Int16, medium: Int32, large: Int64, ratio: Double, score: Float
        let price: Decimal, released: Date, payload: Data, serial: UUID, homepage: URL, size: Measurements
        let note: String?, maybeCount: Int?, maybeDate: Date?, maker: String?, tags: [String], parts: [String]
    }

    private func gadgetValues(_ path: String) throws -> [GadgetValues] {
        let container = try PersistentContainer(name: "Gadgets", entities: gadgetEntities, storeURL: URL(fileURLWithPath: path), options: [.readOnly])
        defer { container.persistentStoreCoordinator.close() }
        var request = FetchRequest<Gadget>()
        request.sortDescriptors = [SortKey("sku")]
        return try container.viewContext.fetch(request).map { g in
            GadgetValues(sku: g.sku, flag: g.flag, count: g.count, small: g.small, medium: g.medium, large: g.large, ratio: g.ratio,
                         score: g.score, price: g.price, released: g.released, payload: g.payload, serial: g.serial, homepage: g.homepage,
                         size: g.size, note: g.note, maybeCount: g.maybeCount, maybeDate: g.maybeDate, maker: g.maker?.name,
                         tags: g.tags.map(\.label).sorted(), parts: g.parts.map(\.code))
        }
    }
}
