import Foundation
import ObjectGraph
import ObjectGraphPostgres
import PostgresTestSupport
import Testing

/// The staged-migration oracle: random stage lists over small random model versions, on
/// real stores of both kinds, checked against the chain rule (docs/migration.md, "The stages
/// form a chain"), which this file states again on its own terms (``StageListCase/expected``):
///
/// - a list that is not empty, whose every stage starts where the one before it ends, that
///   reaches no version twice (a stage within one version aside), ends at the app's model and
///   has a stage starting from the store's version migrates the store to the model with
///   every row and value kept, running the stages from the first that starts at the store's
///   version, in order;
/// - any other list (gaps, forks such as [v1→v2, v1→v3], a stage past the app's model, a
///   duplicate, a cycle, an empty list, a chain not starting at the store's version) is
///   refused with `MigrationError` `.invalidStages` before anything is written: the store's
///   bytes (SQLite) and its version and rows (both) are unchanged.
///
/// Seeded, no timing. A normal run does a few dozen cases; for a long run:
///
///     STAGE_ORACLE_CASES=2000 STAGE_ORACLE_SEED=1 swift test --filter StagedChainOracleTests
///
/// A failure prints the case's seed, its versions, store version, model and stages.
@Suite("Staged migration chain oracle", .onOwnThreads)
struct StagedChainOracleTests {
    @Test("Random stage lists migrate exactly when they form a chain from the store to the model", arguments: StoreKind.allCases)
    func randomStageLists(_ kind: StoreKind) throws {
        let settings = LongRunSettings(prefix: "STAGE_ORACLE_")
        let count = settings.count("CASES", kind == .sqlite ? 40 : 16)
        let first = settings.seed(1)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stage-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = kind == .postgres ? try PostgresTestServer.newDatabase("stages") : nil
        var tally = (valid: 0, refused: 0, rows: 0, stages: 0)
        var failures: [String] = []
        for offset in 0..<UInt64(count) {
            let generated = StageListCase(seed: first &+ offset)
            let problems: [String]
            do {
                problems = try run(generated, kind: kind, folder: folder, database: database, tally: &tally)
            } catch {
                problems = ["threw \(error)"]
            }
            if !problems.isEmpty { failures.append("seed \(generated.seed): \(problems.joined(separator: "; "))\n\(generated)") }
        }
        print("staged chain oracle (\(kind)): \(count) cases from seed \(first): \(tally.valid) migrated, \(tally.refused) refused, \(tally.stages) stages, \(tally.rows) rows; failed: \(failures.count)")
        #expect(failures.isEmpty, "\(failures.prefix(3).joined(separator: "\n\n"))\n(run one with STAGE_ORACLE_SEED=<seed> STAGE_ORACLE_CASES=1)")
        #expect(tally.valid > 0 && tally.refused > 0, "both kinds of list were tried")
    }

    /// Runs one case on a new store; returns what did not hold.
    private func run(_ generated: StageListCase, kind: StoreKind, folder: URL, database: URL?,
                     tally: inout (valid: Int, refused: Int, rows: Int, stages: Int)) throws -> [String] {
        let caseFolder = folder.appendingPathComponent("case-\(generated.seed)")
        try FileManager.default.createDirectory(at: caseFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: caseFolder) }
        let models = try generated.versions.enumerated().map { index, version in
            let file = caseFolder.appendingPathComponent("v\(index).xml")
            try Data(version.xml.utf8).write(to: file)
            return try ManagedObjectModel(contentsOf: file)
        }
        let location: PersistentContainer.Location
        var sqliteFile: URL?
        if let database {
            var components = URLComponents(url: database, resolvingAgainstBaseURL: false)!
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: "case_\(generated.seed)")]
            location = .postgres(components.url!)
        } else {
            sqliteFile = caseFolder.appendingPathComponent("Store.sqlite")
            location = .file(sqliteFile!)
        }
        // The store at its version, with the case's rows.
        do {
            let container = try PersistentContainer(name: "Oracle", model: models[generated.store], location: location)
            for (label, number) in generated.rows {
                let item = try container.viewContext.insertNewObject(forEntityName: "Item")
                try item.setValue(label, forKey: "label")
                try item.setValue(number, forKey: "number")
            }
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        tally.rows += generated.rows.count
        tally.stages += generated.stages.count
        let before = sqliteFile.map { try? Data(contentsOf: $0) } ?? nil
        let ran = Locked<[Int]>([])
        let stages = generated.stages.enumerated().map { index, stage -> MigrationStage in
            let (source, destination) = (models[stage.from], models[stage.to])
            guard stage.custom else { return .lightweight(from: source, to: destination, label: "stage \(index)") }
            return .custom(from: source, to: destination, label: "stage \(index)", willMigrate: { _ in ran.withLock { $0.append(index) } })
        }
        var problems: [String] = []
        let expected = generated.expected
        do {
            let container = try PersistentContainer(name: "Oracle", model: models[generated.model], location: location,
                                                    stagedMigration: StagedMigrationManager(stages))
            container.persistentStoreCoordinator.close()
            guard let order = expected else { return ["migrated, but the list is not a chain from the store's version to the model"] }
            tally.valid += 1
            if ran.value != order { problems.append("custom stages ran \(ran.value), the rule says \(order)") }
            problems += try rowsProblems(generated, model: models[generated.model], location: location, at: "the model's version")
        } catch let error as MigrationError where error.code == .invalidStages {
            guard expected == nil else { return ["refused as \(error), but the list is a chain from the store's version to the model"] }
            tally.refused += 1
            if error.stageChain == nil { problems.append("the error names no stage chain problem") }
            if !ran.value.isEmpty { problems.append("stages \(ran.value) ran before the refusal") }
            if let sqliteFile, (try? Data(contentsOf: sqliteFile)) != before { problems.append("the refused migration changed the store file") }
            problems += try rowsProblems(generated, model: models[generated.store], location: location, at: "the store's own version")
        }
        return problems
    }

    /// Opens the store read-only (which never migrates) with `model` and compares its rows.
    private func rowsProblems(_ generated: StageListCase, model: ManagedObjectModel, location: PersistentContainer.Location,
                              at version: String) throws -> [String] {
        let container: PersistentContainer
        do {
            container = try PersistentContainer(name: "Oracle", model: model, location: location, options: [.readOnly])
        } catch {
            return ["the store is not at \(version): \(error)"]
        }
        defer { container.persistentStoreCoordinator.close() }
        var request = FetchRequest<ManagedObject>(entityName: "Item")
        request.sortDescriptors = [SortKey("number")]
        let rows = try container.viewContext.fetch(request).map { item in
            let number = item.value(forKey: "number")
            return (item.value(forKey: "label") as? String ?? "?", (number as? Int64) ?? (number as? Int).map(Int64.init) ?? -1)
        }
        let expected = generated.rows.sorted { $0.1 < $1.1 }
        guard rows.map(\.0) == expected.map(\.0), rows.map(\.1) == expected.map(\.1) else {
            return ["rows at \(version): \(rows), expected \(expected)"]
        }
        return []
    }
}

/// One case of the oracle: a pool of model versions (an `Item` with `label` and `number`,
/// and each version its own set of extra attributes), the store's version, the app's model
/// and a stage list (indices into the pool), valid or broken in one random way.
struct StageListCase: CustomStringConvertible {
    struct Stage { var from: Int, to: Int, custom: Bool }
    struct Version { var extras: [String] }

    let seed: UInt64
    var versions: [Version] = []
    var store = 0
    var model = 0
    var stages: [Stage] = []
    var rows: [(String, Int64)] = []
    /// How the list was made (for the report): "valid" or the way it was broken.
    var made = "valid"

    init(seed: UInt64) {
        self.seed = seed
        var random = GraphRandom(seed: seed)
        // 3 to 6 versions, each with a distinct set of extra attributes.
        let pool = ["alpha", "beta", "gamma", "delta", "epsilon"]
        var seen = Set<[String]>()
        let versionCount = Int.random(in: 3...6, using: &random)
        while versions.count < versionCount {
            let extras = pool.filter { _ in Bool.random(using: &random) }
            if seen.insert(extras).inserted { versions.append(Version(extras: extras)) }
        }
        model = Int.random(in: 0..<versionCount, using: &random)
        store = (model + Int.random(in: 1..<versionCount, using: &random)) % versionCount
        rows = (0..<Int.random(in: 1...4, using: &random)).map { ("row \($0) of \(seed)", Int64($0 * 7 + 1)) }

        // A valid path: some versions before the store's, the store's, some between, the model.
        var others = Array(0..<versionCount).filter { $0 != store && $0 != model }.shuffled(using: &random)
        let before = Int.random(in: 0...min(1, others.count), using: &random)
        var path = Array(others.prefix(before)) + [store]
        others.removeFirst(before)
        path += others.prefix(Int.random(in: 0...others.count, using: &random)) + [model]
        for (from, to) in zip(path, path.dropFirst()) {
            if Int.random(in: 0..<6, using: &random) == 0 { stages.append(Stage(from: from, to: from, custom: true)) }   // within one version
            stages.append(Stage(from: from, to: to, custom: Bool.random(using: &random)))
        }
        guard Int.random(in: 0..<5, using: &random) >= 2 else { return }   // two in five stay valid
        let any = { (random: inout GraphRandom) in Int.random(in: 0..<versionCount, using: &random) }
        switch Int.random(in: 0..<8, using: &random) {
        case 0:
            made = "empty"
            stages = []
        case 1:
            made = "a stage past the model"
            let beyond = (model + Int.random(in: 1..<versionCount, using: &random)) % versionCount
            stages.append(Stage(from: model, to: beyond, custom: false))
        case 2:
            made = "the last stage removed"
            stages.removeLast()
        case 3:
            made = "a fork"
            let index = Int.random(in: 0..<stages.count, using: &random)
            let source = stages[index].from
            let elsewhere = (stages[index].to + Int.random(in: 1..<versionCount, using: &random)) % versionCount
            stages.insert(Stage(from: source, to: elsewhere == source ? stages[index].to : elsewhere, custom: false), at: index + 1)
        case 4:
            made = "a stage duplicated"
            let index = Int.random(in: 0..<stages.count, using: &random)
            stages.insert(stages[index], at: index)
        case 5:
            made = "a middle stage removed (a gap)"
            if stages.count > 2 { stages.remove(at: Int.random(in: 1..<(stages.count - 1), using: &random)) } else { stages.remove(at: 0) }
        case 6:
            made = "a cycle"
            let index = Int.random(in: 0..<stages.count, using: &random)
            let stage = stages[index]
            stages.insert(contentsOf: [Stage(from: stage.to, to: stage.from, custom: false), stage], at: index + 1)
        default:
            made = "a chain not starting at the store's version"
            let storeVersion = store
            stages.removeAll { $0.from == storeVersion }
            let start = stages.first?.from ?? model
            var other = any(&random)
            if other == store { other = (other + 1) % versionCount }
            if other != start && other != store { stages.insert(Stage(from: other, to: start, custom: false), at: 0) }
        }
    }

    /// The rule, stated independently of the library: the custom stages that run, in order,
    /// for a valid list; nil for one that must be refused.
    var expected: [Int]? {
        guard !stages.isEmpty, stages.last!.to == model else { return nil }
        for index in stages.indices.dropFirst() where stages[index].from != stages[index - 1].to { return nil }
        var visited = [stages[0].from]
        for stage in stages where stage.to != stage.from {
            if visited.contains(stage.to) { return nil }
            visited.append(stage.to)
        }
        guard let start = stages.firstIndex(where: { $0.from == store }) else { return nil }
        return stages.indices.filter { $0 >= start && stages[$0].custom }
    }

    var description: String {
        let list = stages.map { "v\($0.from)→v\($0.to)\($0.custom ? " (custom)" : "")" }.joined(separator: ", ")
        let pool = versions.enumerated().map { "v\($0.offset)=[\($0.element.extras.joined(separator: ","))]" }.joined(separator: " ")
        return "  versions \(pool); store at v\(store), model v\(model); stages [\(list)] (\(made)); rows \(rows.count)"
    }
}

extension StageListCase.Version {
    /// The version as model file XML: `label` and `number` always, each extra an optional
    /// integer.
    var xml: String {
        let extras = extras.map { #"<attribute name="\#($0)" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>"# }
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Item" representedClassName="Item" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <attribute name="number" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            \(extras.joined(separator: "\n"))
            </entity>
            </model>
            """
    }
}
