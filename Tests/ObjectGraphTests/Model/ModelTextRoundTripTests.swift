import Foundation
@testable import ObjectGraph
import XCTest

/// A String default holding characters XML 1.0 cannot hold (`"a\u{1}b"`).
final class ControlCharacterDefaults: ManagedObject {
    @Attribute var control: String = "a\u{1}b"
    @Attribute var lines: String = "one\r\ntwo\rthree"
    @Attribute var quoted: String = "\"\u{301} <&> \\u{41} \u{FFFE}"
}

/// Names a Swift model may have and a model file may not.
final class ÜnicodeNamed: ManagedObject {
    override class var entityName: String { "Ünicode" }
    @Attribute var café: String = "crème"
}

/// The model a store keeps (``ManagedObjectModel/contentsXML`` in its metadata) reads back
/// exactly, whatever its strings hold: names, defaults, user info, renaming identifiers,
/// class and transformer names, expressions, index names, the version identifier.
final class ModelTextRoundTripTests: StoreTestCase {
    func testAStoreWhoseDefaultsHoldControlCharactersDescribesItsModelExactly() throws {
        // Before: the store saved, but its model XML was not well-formed: every model-less
        // open failed with corruptMetadata ("the model kept in the store's metadata cannot be read").
        do {
            let container = try makeContainer([ControlCharacterDefaults.self])
            _ = ControlCharacterDefaults(context: container.viewContext)
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let model = try ManagedObjectModel(storeURL: storeURL)
        let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL, options: [.readOnly])
        defer { container.persistentStoreCoordinator.close() }
        let stored = try XCTUnwrap(try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "ControlCharacterDefaults")).first)
        let inserted = try container.viewContext.insertNewObject(forEntityName: "ControlCharacterDefaults")   // in memory only
        for (key, value) in [("control", "a\u{1}b"), ("lines", "one\r\ntwo\rthree"), ("quoted", "\"\u{301} <&> \\u{41} \u{FFFE}")] {
            XCTAssertEqual(stored.value(forKey: key) as? String, value, key)
            XCTAssertEqual(inserted.value(forKey: key) as? String, value, "the rebuilt model's default of \(key)")
        }
    }

    func testAStoreOfASwiftModelWithNamesAModelFileCannotHaveDescribesItsModel() throws {
        // Before: ManagedObjectModel(storeURL:) threw corruptMetadata: the name "…Café" is not a plain identifier.
        do {
            let container = try makeContainer([ÜnicodeNamed.self])
            _ = ÜnicodeNamed(context: container.viewContext)
            try container.viewContext.save()
            container.persistentStoreCoordinator.close()
        }
        let model = try ManagedObjectModel(storeURL: storeURL)
        XCTAssertEqual(model.entityVersionHashesByName, try ManagedObjectModel(entities: [ÜnicodeNamed.self]).entityVersionHashesByName)
        let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL, options: [.readOnly])
        defer { container.persistentStoreCoordinator.close() }
        let stored = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Ünicode"))
        XCTAssertEqual(stored.map { $0.value(forKey: "café") as? String }, ["crème"])
    }

    /// Random models with random strings in every string-carrying place, written as the
    /// store keeps them and read back: equal, string for string. Seeded; for a long run:
    ///
    ///     MODEL_TEXT_CASES=20000 MODEL_TEXT_SEED=1 swift test --filter ModelTextRoundTripTests
    func testRandomModelsWithRandomStringsEverywhereReadBackEqual() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["MODEL_TEXT_CASES"].flatMap(Int.init) ?? 300
        let first = environment["MODEL_TEXT_SEED"].flatMap(UInt64.init) ?? 1
        var failed: [String] = []
        for offset in 0..<UInt64(count) {
            let seed = first &+ offset
            var random = SplitMix(seed: seed)
            let model = try Self.randomModel(&random)
            let xml = model.contentsXML
            do {
                let read = try ManagedObjectModel.reading(contentsXML: xml, file: URL(fileURLWithPath: "seed-\(seed)"))
                let problems = Self.differences(model, read)
                if !problems.isEmpty { failed.append("seed \(seed): \(problems.prefix(3).joined(separator: "; "))") }
            } catch {
                failed.append("seed \(seed): \(error)")
            }
        }
        print("model text round trip: \(count) models from seed \(first); failed: \(failed.count)")
        XCTAssertEqual(failed.prefix(5), [], "failing seeds (MODEL_TEXT_SEED=<seed> MODEL_TEXT_CASES=1 runs one)")
    }

    // MARK: Random models

    /// Pieces random strings are made of: C0 and C1 controls, XML's special characters,
    /// `\r\n` and a quote or comma carrying a combining mark (one `Character` each),
    /// noncharacters, emoji, the escape scheme's own spelling, plain text.
    private static let pieces = ["a", "Z", "0", " ", "  ", "\u{0}", "\u{1}", "\u{8}", "\u{B}", "\u{C}", "\u{1F}", "\u{7F}", "\u{85}",
                                 "\t", "\n", "\r", "\r\n", "&", "&amp;", "<", ">", "\"", "'", "\"\u{301}", ",\u{301}", "\\", "\\u{41}",
                                 "\\\\", "%", "é", "e\u{301}", "🙂", "👩‍👩‍👧", "\u{FFFE}", "\u{FFFF}", "\u{FFFD}", "\u{E000}",
                                 "\u{10FFFF}", "\u{2028}", "]]>", ".escaped", "=\"x\""]

    static func randomString(_ random: inout SplitMix) -> String {
        (0..<random.below(7)).map { _ in random.pick(pieces) }.joined()
    }

    private static func maybe(_ random: inout SplitMix) -> String? {
        random.chance(60) ? randomString(&random) : nil
    }

    private static func userInfo(_ random: inout SplitMix) -> [String: String] {
        var info: [String: String] = [:]
        for _ in 0..<random.below(3) { info[randomString(&random)] = randomString(&random) }
        return info
    }

    static func randomModel(_ random: inout SplitMix) throws -> ManagedObjectModel {
        let entityCount = 1 + random.below(3)
        var specifications: [EntitySpecification] = []
        // Names: a model file's plain identifiers, or (a Swift model's) anything after them.
        let entityNames = (0..<entityCount).map { "E\($0)" + (random.chance(30) ? randomString(&random) : "") }
        for index in 0..<entityCount {
            var spec = EntitySpecification(name: entityNames[index], managedClass: ManagedObject.self, parent: nil, isAbstract: false, properties: [])
            spec.fileDetails.className = maybe(&random)
            spec.fileDetails.userInfo = userInfo(&random)
            spec.fileDetails.renamingIdentifier = maybe(&random)
            spec.fileDetails.versionHashModifier = maybe(&random)
            for number in 0..<(1 + random.below(4)) {
                let name = "a\(number)" + (number > 0 && random.chance(30) ? randomString(&random) : "")
                var details = PropertyFileDetails()
                details.userInfo = userInfo(&random)
                details.renamingIdentifier = maybe(&random)
                details.versionHashModifier = maybe(&random)
                let type: AttributeType
                var defaultValue: (() -> SlotValue)?
                switch random.below(3) {
                case 0:
                    type = .string
                    let text = randomString(&random)
                    // A Swift model's constant default, or a model file's defaultValueString.
                    if random.chance(50) { details.defaultValueString = text }
                    defaultValue = { .text(text) }
                case 1:
                    type = .transformable
                    details.valueTransformerName = maybe(&random)
                    details.customClassName = maybe(&random)
                default:
                    type = .integer32
                    if random.chance(40) { details.derivationExpression = randomString(&random) }
                }
                let conversion: ValueConversion = type == .transformable
                    ? .transformable(named: details.valueTransformerName, entity: spec.name, attribute: name) : .dynamic(type)
                spec.properties.append(.attribute(name: name, type: type, isOptional: random.chance(50), isTransient: false,
                                                  defaultValue: defaultValue, conversion: conversion))
                spec.propertyFileDetails[name] = details
            }
            if random.chance(40) { spec.fileDetails.uniquenessConstraints = [["a0"]] }
            if random.chance(40) {
                spec.fileDetails.fetchIndexes = [FetchIndexDescription(name: randomString(&random), elements: [.init(property: "a0", ascending: random.chance(50))])]
            }
            specifications.append(spec)
        }
        if entityCount > 1 {
            // A to-one and its to-many inverse between the first two entities.
            specifications[0].properties.append(.relationship(name: "owner", kind: .toOne, destination: entityNames[1], inverse: "owned", deleteRule: .nullify, isOptional: true))
            specifications[1].properties.append(.relationship(name: "owned", kind: .toMany, destination: entityNames[0], inverse: "owner", deleteRule: .cascade, isOptional: true))
            for (index, name) in [(0, "owner"), (1, "owned")] {
                var details = PropertyFileDetails()
                details.userInfo = userInfo(&random)
                details.renamingIdentifier = maybe(&random)
                details.versionHashModifier = maybe(&random)
                specifications[index].propertyFileDetails[name] = details
            }
        }
        let identifier = randomString(&random)
        return try ManagedObjectModel(specifications: specifications, versionIdentifiers: identifier.isEmpty ? [] : [identifier])
    }

    /// What differs between a model and the one read back from its XML.
    static func differences(_ model: ManagedObjectModel, _ read: ManagedObjectModel) -> [String] {
        var problems: [String] = []
        func check<T: Equatable>(_ a: T, _ b: T, _ what: String) {
            if a != b { problems.append("\(what): \(String(reflecting: a)) became \(String(reflecting: b))") }
        }
        check(model.versionIdentifiers, read.versionIdentifiers, "version identifiers")
        check(model.entityVersionHashesByName, read.entityVersionHashesByName, "version hashes")
        check(model.entities.map(\.name), read.entities.map(\.name), "entities")
        for entity in model.entities {
            guard let other = read.entitiesByName[entity.name] else { continue }
            check(entity.fileDetails, other.fileDetails, "\(entity.name)'s details")
            check(entity.properties.map(\.name), other.properties.map(\.name), "\(entity.name)'s properties")
            for property in entity.properties {
                guard let copy = other.propertiesByName[property.name] else { continue }
                let what = "\(entity.name).\(property.name)"
                check(property.fileDetails.userInfo, copy.fileDetails.userInfo, "\(what) user info")
                check(property.fileDetails.renamingIdentifier, copy.fileDetails.renamingIdentifier, "\(what) renaming identifier")
                check(property.fileDetails.versionHashModifier, copy.fileDetails.versionHashModifier, "\(what) version hash modifier")
                check(property.fileDetails.valueTransformerName, copy.fileDetails.valueTransformerName, "\(what) transformer")
                check(property.fileDetails.customClassName, copy.fileDetails.customClassName, "\(what) custom class")
                check(property.fileDetails.derivationExpression, copy.fileDetails.derivationExpression, "\(what) derivation")
                if let attribute = property as? AttributeDescription, let readAttribute = copy as? AttributeDescription {
                    check(attribute.defaultValue?(), readAttribute.defaultValue?(), "\(what) default")
                }
            }
        }
        check(model.contentsXML, read.contentsXML, "the XML written again")
        return problems
    }
}
