import Foundation
@testable import ObjectGraph
import XCTest

/// The migration generator: random pairs of model versions (attributes added, removed,
/// renamed by renaming identifier, retyped where Core Data converts, made optional or
/// required; sibling sub-entities with same-named attributes and to-ones; relationships
/// added, removed, renamed, to-one <-> to-many; entities renamed and moved in the
/// hierarchy), with random rows written through the public API, migrated, and compared with
/// the reference transformation of the rows (MigrationGeneratorReference.swift). A quarter
/// of the stores are made to look like Apple's (no recorded model), so the column choice
/// from the values is exercised too.
///
/// Seeded. A normal run does a few seconds' worth; for a long run:
///
///     MIGRATION_GENERATOR_CASES=2000 MIGRATION_GENERATOR_SEED=1 swift test --filter MigrationGeneratorTests
///
/// A failure prints each failing case's seed, its two models, its changes and rows, and
/// the one-line command that runs that case alone.
final class MigrationGeneratorTests: StoreTestCase {
    func testRandomModelVersionPairsMigrateAsTheReferenceTransformationSays() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["MIGRATION_GENERATOR_CASES"].flatMap(Int.init) ?? 40
        let first = environment["MIGRATION_GENERATOR_SEED"].flatMap(UInt64.init) ?? 1
        let start = Date()
        var tally = GeneratorTally()
        var failed: [UInt64] = []
        for offset in 0..<UInt64(count) {
            let seed = first &+ offset
            let generated = MigrationGeneratorCase(seed: seed)
            let problems: [String]
            do {
                problems = try run(generated, tally: &tally)
            } catch {
                problems = ["threw \(error)"]
            }
            guard !problems.isEmpty else { continue }
            failed.append(seed)
            if failed.count <= 3 { report(generated, problems) }
        }
        let seconds = Date().timeIntervalSince(start)
        print("migration generator: \(count) cases from seed \(first) in \(String(format: "%.1f", seconds)) s: \(tally); failed: \(failed.count)\(failed.isEmpty ? "" : " (seeds \(failed.prefix(20).map(String.init).joined(separator: ", ")))")")
        XCTAssertEqual(failed, [], "failing seeds (each reported above)")
        XCTAssertGreaterThan(tally.migrated, 0, "some cases migrated")
    }

    /// Counts over a run, for the report in docs/reliability.md.
    struct GeneratorTally: CustomStringConvertible {
        var migrated = 0, refusedDrops = 0, conversionFailures = 0, appleLike = 0, rows = 0, changes = 0
        var description: String {
            "migrated=\(migrated) refusedAsDropping=\(refusedDrops) stoppedByAValue=\(conversionFailures) withoutRecordedModel=\(appleLike) rows=\(rows) changes=\(changes)"
        }
    }

    // MARK: One case

    /// Runs one case in a folder of its own; returns what did not match.
    private func run(_ generated: MigrationGeneratorCase, tally: inout GeneratorTally) throws -> [String] {
        let folder = directory.appendingPathComponent("case-\(generated.seed)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Store.sqlite")
        let v1 = try model(generated.v1.xml, in: folder, name: "v1")
        let v2 = try model(generated.v2.xml, in: folder, name: "v2")
        let oldKeys = try write(generated, model: v1, to: url)
        let appleLike = generated.seed % 4 == 0
        if appleLike {
            try forgetRecordedModel(url)
            tally.appleLike += 1
        }
        tally.rows += generated.objects.count
        tally.changes += generated.changes.count
        let expected = generated.expectation(oldKeys: oldKeys, withoutRecordedModel: appleLike)
        var problems: [String] = []

        // Without the option: refused exactly when data would be dropped.
        let before = storeBytes(url)
        var migrated = false
        do {
            let container = try PersistentContainer(name: "Case", model: v2, storeURL: url)
            container.persistentStoreCoordinator.close()
            migrated = true
            if expected.dropsData { problems.append("migrated without .allowsDroppingData although it drops \(describe(expected))") }
        } catch let error as MigrationError where error.code == .wouldDropData {
            tally.refusedDrops += 1
            if !expected.dropsData { problems.append("refused as dropping data, but nothing is dropped: \(error.droppedData)") }
            if !appleLike { problems += compareDrops(error.droppedData, expected) }
            if storeBytes(url) != before { problems.append("the refused migration changed the store") }
        } catch let error as MigrationError where expected.failures.contains(error.code.description) && expected.drops.isEmpty {
            // Removed links are counted after the copy, which a value that does not convert stops first.
            tally.conversionFailures += 1
            if storeBytes(url) != before { problems.append("the failed migration changed the store") }
            return problems
        }
        guard problems.isEmpty else { return problems }

        // With it (or after it): the rows the reference says, or the failure it predicts.
        if !migrated {
            do {
                let container = try PersistentContainer(name: "Case", model: v2, storeURL: url, options: [.allowsDroppingData])
                container.persistentStoreCoordinator.close()
            } catch let error as MigrationError where expected.failures.contains(error.code.description) {
                tally.conversionFailures += 1
                if storeBytes(url) != before { problems.append("the failed migration changed the store") }
                return problems
            }
        }
        if !expected.failures.isEmpty { return ["migrated although the reference says \(expected.failures.sorted()) must stop it"] }
        tally.migrated += 1
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: v2, storeURL: url))
        let container = try PersistentContainer(name: "Case", model: v2, storeURL: url)
        defer { container.persistentStoreCoordinator.close() }
        problems += try compare(expected, container: container, model: generated.v2)
        if try SQLiteFile(url).rows("PRAGMA integrity_check") != [[.text("ok")]] { problems.append("integrity_check fails") }
        return problems
    }

    private func model(_ xml: String, in folder: URL, name: String) throws -> ManagedObjectModel {
        let file = folder.appendingPathComponent("\(name).xml")
        try Data(xml.utf8).write(to: file)
        return try ManagedObjectModel(contentsOf: file)
    }

    /// Writes the case's rows with v1; returns each object's key (`Z_PK`) by identity.
    private func write(_ generated: MigrationGeneratorCase, model: ManagedObjectModel, to url: URL) throws -> [Int64: Int64] {
        let container = try PersistentContainer(name: "Case", model: model, storeURL: url)
        defer { container.persistentStoreCoordinator.close() }
        let context = container.viewContext
        var byIdent: [Int64: ManagedObject] = [:]
        for object in generated.objects {
            let inserted = try context.insertNewObject(forEntityName: object.entity)
            for attribute in generated.v1.attributes(of: object.entity) {
                try inserted.setValue(object.values[attribute.name].map { swiftValue($0, attribute.type) } ?? nil, forKey: attribute.name)
            }
            byIdent[object.ident] = inserted
        }
        for object in generated.objects {
            let inserted = byIdent[object.ident]!
            for (name, destination) in object.toOne { try inserted.setValue(byIdent[destination], forKey: name) }
            for (name, members) in object.toMany { try inserted.setValue(Set(members.map { byIdent[$0]! }), forKey: name) }
        }
        try context.save()
        return byIdent.mapValues { $0.objectID.primaryKey ?? 0 }
    }

    private func swiftValue(_ value: GenValue, _ type: GenType) -> Any {
        switch (value, type) {
        case (.integer(let v), .integer16): return Int16(v)
        case (.integer(let v), .integer32): return Int32(v)
        case (.integer(let v), _): return v
        case (.real(let d), .decimal): return Decimal(d)
        case (.real(let d), _): return d
        case (.text(let s), _): return s
        case (.boolean(let b), _): return b
        case (.date(let t), _): return Date(timeIntervalSinceReferenceDate: t)
        }
    }

    /// A value read back through key-value access, as a ``GenValue``.
    private func genValue(_ value: Any?) -> GenValue? {
        switch value {
        case let v as Int16: return .integer(Int64(v))
        case let v as Int32: return .integer(Int64(v))
        case let v as Int64: return .integer(v)
        case let v as Int: return .integer(Int64(v))
        case let v as Bool: return .boolean(v)
        case let v as Double: return .real(v)
        case let v as Float: return .real(Double(v))
        case let v as Decimal: return .real(Double("\(v)") ?? .nan)
        case let v as String: return .text(v)
        case let v as Date: return .date(v.timeIntervalSinceReferenceDate)
        default: return nil
        }
    }

    // MARK: Comparing

    private func compare(_ expected: MigrationGeneratorCase.Expectation, container: PersistentContainer,
                         model: GenModel) throws -> [String] {
        var problems: [String] = []
        var actual: [Int64: ManagedObject] = [:]
        for root in model.entities where root.parent == nil {
            for object in try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: root.name)) {
                guard case .integer(let ident)? = genValue(object.value(forKey: "ident")) else {
                    problems.append("a \(object.entity.name) without ident")
                    continue
                }
                actual[ident] = object
            }
        }
        if Set(actual.keys) != Set(expected.objects.keys) {
            problems.append("objects \(actual.keys.sorted()) instead of \(expected.objects.keys.sorted())")
        }
        for (ident, object) in expected.objects.sorted(by: { $0.key < $1.key }) {
            guard let found = actual[ident] else { continue }
            let label = "\(object.entity) #\(ident)"
            if found.entity.name != object.entity { problems.append("\(label) is a \(found.entity.name)") ; continue }
            for attribute in model.attributes(of: object.entity) {
                let value = genValue(found.value(forKey: attribute.name))
                if value != object.values[attribute.name] && !(value == nil && expected.nilAllowed.contains("\(ident).\(attribute.name)")) {
                    problems.append("\(label).\(attribute.name) = \(value.map(String.init(describing:)) ?? "nil"), expected \(object.values[attribute.name].map(String.init(describing:)) ?? "nil")")
                }
            }
            for relationship in model.relationships(of: object.entity) {
                let read = found.value(forKey: relationship.name)
                let idents: Set<Int64>
                if relationship.isToMany {
                    idents = Set(((read as? Set<ManagedObject>) ?? []).compactMap { if case .integer(let v)? = genValue($0.value(forKey: "ident")) { return v } else { return nil } })
                } else {
                    idents = (read as? ManagedObject).flatMap { if case .integer(let v)? = genValue($0.value(forKey: "ident")) { return [v] } else { return nil } } ?? []
                }
                let wanted = relationship.isToMany ? object.toMany[relationship.name] ?? [] : Set(object.toOne[relationship.name].map { [$0] } ?? [])
                if idents != wanted { problems.append("\(label).\(relationship.name) = \(idents.sorted()), expected \(wanted.sorted())") }
            }
        }
        return problems
    }

    /// The listed drops against the reference's: every entity and attribute drop listed with
    /// its row count, and nothing listed that the reference does not drop.
    private func compareDrops(_ listed: [MigrationError.DroppedData], _ expected: MigrationGeneratorCase.Expectation) -> [String] {
        var problems: [String] = []
        let items = listed.map { MigrationGeneratorCase.DroppedItem(entity: $0.entity, property: $0.property, rows: $0.rowCount) }
        for item in expected.drops where !items.contains(item) { problems.append("drop \(item) not listed in \(listed)") }
        for item in items where !expected.drops.contains(item) {
            // A relationship's loss is listed by the side that stores it (whichever entity of
            // the hierarchy declares it), so only the property's name is compared.
            let isRelationship = expected.relationshipDrops.contains { pair in
                [pair.0, pair.1].compactMap { $0 }.contains { $0.property == item.property }
            }
            // A join table of a dropped entity is dropped with it.
            let ofDroppedEntity = expected.drops.contains { $0.property == nil && ($0.entity == item.entity || item.property?.hasSuffix("Of" + $0.entity) == true) }
            if !isRelationship && !ofDroppedEntity { problems.append("listed \(item), which the reference does not drop") }
        }
        return problems
    }

    private func describe(_ expected: MigrationGeneratorCase.Expectation) -> String {
        (expected.drops.map(\.description).sorted() + expected.relationshipDrops.map { $0.0.description }).joined(separator: ", ")
    }

    private func report(_ generated: MigrationGeneratorCase, _ problems: [String]) {
        var text = "\n=== migration generator: case \(generated.seed) failed\n"
        text += "changes: \(generated.changes.joined(separator: "; "))\n"
        text += "problems:\n" + problems.prefix(12).map { "  - \($0)" }.joined(separator: "\n") + "\n"
        text += "rows (first 12):\n" + generated.objects.prefix(12).map { "  \($0.entity) #\($0.ident) \($0.values) toOne=\($0.toOne) toMany=\($0.toMany)" }.joined(separator: "\n") + "\n"
        text += "v1:\n\(generated.v1.xml)\nv2:\n\(generated.v2.xml)\n"
        text += "reproduce: MIGRATION_GENERATOR_SEED=\(generated.seed) MIGRATION_GENERATOR_CASES=1 swift test --filter MigrationGeneratorTests\n"
        print(text)
    }
}
