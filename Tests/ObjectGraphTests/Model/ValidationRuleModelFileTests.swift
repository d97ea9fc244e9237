import Foundation
@testable import ObjectGraph
import XCTest

/// A Swift model whose attributes carry every kind of `@Attribute` validation rule.
final class RuledPerson: ManagedObject {
    @Attribute(.range(0...150)) var age: Int16 = 0
    @Attribute(.range(-1.5...99.5)) var score: Double = 0
    @Attribute(.range(Decimal(string: "0.01")!...)) var fee: Decimal? = nil
    @Attribute(.range(...Date(timeIntervalSinceReferenceDate: 788_918_400))) var joined: Date? = nil
    @Attribute([.unique, .length(1...8), .pattern("[A-Z][a-z]*")]) var name: String = "Ann"
    @Attribute(.length(...4)) var code: String? = nil
}

/// An attribute whose rule does not fit its type.
final class LengthOnANumber: ManagedObject {
    @Attribute(.length(1...3)) var count: Int = 1
}

/// A pattern that is not a regular expression.
final class BadPattern: ManagedObject {
    @Attribute(.pattern("[a-z")) var word: String = "a"
}

/// Validation rules in model files (`minValueString`, `maxValueString`,
/// `minDateTimeInterval`, `maxDateTimeInterval`, `regularExpressionString`) and in
/// `@Attribute` options: read into ``AttributeDescription/validationRules``, written back by
/// ``ManagedObjectModel/contentsXML``, kept out of the version hash, and refused with a
/// ``ModelError`` when they cannot hold. The save side: ValidationRuleTests
/// (StoreBehaviourTests).
final class ValidationRuleModelFileTests: StoreTestCase {
    static var clubFile: URL { Fixtures.directory.appendingPathComponent("ValidationRules/Club.xcdatamodel-contents.xml") }

    private func write(_ text: String) throws -> URL {
        let url = directory.appendingPathComponent("contents-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url
    }

    private func rules(_ model: ManagedObjectModel, _ entity: String, _ attribute: String) -> AttributeValidationRules? {
        (model.entitiesByName[entity]?.property(named: attribute) as? AttributeDescription)?.validationRules
    }

    // Before: the reader ignored every validation attribute; validationRules did not exist.
    func testTheFileRulesAreReadForEachType() throws {
        let model = try ManagedObjectModel(contentsOf: Self.clubFile)
        XCTAssertEqual(rules(model, "Member", "age"), AttributeValidationRules(minimum: .integer(0), maximum: .integer(150)))
        XCTAssertEqual(rules(model, "Member", "score"), AttributeValidationRules(minimum: .number(-1.5), maximum: .number(99.5)))
        XCTAssertEqual(rules(model, "Member", "fee"),
                       AttributeValidationRules(minimum: .decimal(Decimal(string: "0.01")!), maximum: .decimal(1000)))
        XCTAssertEqual(rules(model, "Member", "joined"),
                       AttributeValidationRules(minimum: .date(Date(timeIntervalSinceReferenceDate: 0)),
                                                maximum: .date(Date(timeIntervalSinceReferenceDate: 788_918_400))))
        XCTAssertEqual(rules(model, "Member", "code"), AttributeValidationRules(minimum: .length(2), maximum: .length(4)))
        XCTAssertEqual(rules(model, "Party", "name"), AttributeValidationRules(minimum: .length(1), maximum: .length(8), pattern: "[A-Z][a-z]*"))
        XCTAssertEqual(rules(model, "Member", "name"), rules(model, "Party", "name"), "inherited with the attribute")
        XCTAssertEqual(rules(model, "Team", "title"), AttributeValidationRules())
        let teams = try XCTUnwrap(model.entitiesByName["Member"]?.property(named: "teams"))
        XCTAssertEqual(teams.fileDetails.minCount, 1)
        XCTAssertEqual(teams.fileDetails.maxCount, 2)
    }

    // Before: contentsXML wrote no validation attribute, so a store's kept model lost them.
    func testTheModelsXMLKeepsTheRulesOnARoundTrip() throws {
        for model in [try ManagedObjectModel(contentsOf: Self.clubFile), try ManagedObjectModel(entities: [RuledPerson.self])] {
            let xml = model.contentsXML
            let read = try ManagedObjectModel.reading(contentsXML: xml, file: URL(fileURLWithPath: "round-trip"))
            for entity in model.entities {
                for attribute in entity.attributes {
                    XCTAssertEqual(rules(read, entity.name, attribute.name), attribute.validationRules, "\(entity.name).\(attribute.name)")
                }
            }
            XCTAssertEqual(read.contentsXML, xml, "written again the same")
            XCTAssertEqual(read.entityVersionHashesByName, model.entityVersionHashesByName)
        }
        let xml = try ManagedObjectModel(contentsOf: Self.clubFile).contentsXML
        XCTAssertTrue(xml.contains(#"minDateTimeInterval="0" maxDateTimeInterval="788918400""#), xml)
        XCTAssertTrue(xml.contains(#"minValueString="1" maxValueString="8" regularExpressionString="[A-Z][a-z]*""#), xml)
    }

    /// Core Data leaves validation predicates out of `versionHash`: adding or changing a rule
    /// needs no migration. The Apple-written fixtures (EasyLife's `repeats` has
    /// `minValueString="0"`) are checked by the Apple store tests.
    func testRulesAreNotPartOfTheVersionHash() throws {
        let text = try String(contentsOf: Self.clubFile, encoding: .utf8)
        let stripped = text.replacingOccurrences(of: #" (min|max)(ValueString|DateTimeInterval)="[^"]*""#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #" regularExpressionString="[^"]*""#, with: "", options: .regularExpression)
        XCTAssertFalse(stripped.contains("ValueString"))
        let plain = try ManagedObjectModel(contentsOf: write(stripped))
        let ruled = try ManagedObjectModel(contentsOf: Self.clubFile)
        XCTAssertEqual(rules(plain, "Member", "age"), AttributeValidationRules())
        XCTAssertEqual(plain.entityVersionHashesByName, ruled.entityVersionHashesByName)
        XCTAssertEqual(try ManagedObjectModel(entities: [RuledPerson.self]).entityVersionHashesByName["RuledPerson"]?.count, 32)
    }

    func testTheSwiftOptionsGiveTheSameRules() throws {
        let model = try ManagedObjectModel(entities: [RuledPerson.self])
        XCTAssertEqual(rules(model, "RuledPerson", "age"), AttributeValidationRules(minimum: .integer(0), maximum: .integer(150)))
        XCTAssertEqual(rules(model, "RuledPerson", "score"), AttributeValidationRules(minimum: .number(-1.5), maximum: .number(99.5)))
        XCTAssertEqual(rules(model, "RuledPerson", "fee"), AttributeValidationRules(minimum: .decimal(Decimal(string: "0.01")!)))
        XCTAssertEqual(rules(model, "RuledPerson", "joined"),
                       AttributeValidationRules(maximum: .date(Date(timeIntervalSinceReferenceDate: 788_918_400))))
        XCTAssertEqual(rules(model, "RuledPerson", "name"), AttributeValidationRules(minimum: .length(1), maximum: .length(8), pattern: "[A-Z][a-z]*"))
        XCTAssertEqual(rules(model, "RuledPerson", "code"), AttributeValidationRules(maximum: .length(4)))
        XCTAssertEqual(model.entitiesByName["RuledPerson"]?.fileDetails.uniquenessConstraints, [["name"]], "flags still work beside rules")
    }

    private func expectRuleError(_ attribute: String, _ fragment: String, code: ModelError.Code = .invalidValidationRule,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Thing" syncable="YES">
                \(attribute)
            </entity>
        </model>
        """
        XCTAssertThrowsError(try ManagedObjectModel(contentsOf: write(xml)), file: file, line: line) { error in
            guard let error = error as? ModelError else { return XCTFail("not a ModelError: \(error)", file: file, line: line) }
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            XCTAssertTrue(error.description.contains(fragment), "\(error)", file: file, line: line)
        }
    }

    // Before: every one of these loaded without a word (the rules were not read).
    func testAnInvalidRuleInAFileIsAModelErrorAtLoad() throws {
        try expectRuleError(#"<attribute name="word" attributeType="String" regularExpressionString="[a-z"/>"#, "not valid ICU syntax")
        try expectRuleError(#"<attribute name="word" attributeType="String" regularExpressionString="a)(b"/>"#, "a)(b")
        try expectRuleError(#"<attribute name="n" attributeType="Integer 32" minValueString="10" maxValueString="2"/>"#,
                            "minimum 10 is greater than its maximum 2")
        try expectRuleError(#"<attribute name="d" attributeType="Date" minDateTimeInterval="5" maxDateTimeInterval="1"/>"#, "greater than its maximum")
        try expectRuleError(#"<attribute name="word" attributeType="String" minValueString="5" maxValueString="4"/>"#, "greater than its maximum")
        try expectRuleError(#"<attribute name="flag" attributeType="Boolean" minValueString="0"/>"#, "take no minimum")
        try expectRuleError(#"<attribute name="n" attributeType="Integer 16" minValueString="ten"/>"#, "minValueString \"ten\"", code: .invalidModelFile)
        try expectRuleError(#"<attribute name="word" attributeType="String" maxValueString="-1"/>"#, "maxValueString \"-1\"", code: .invalidModelFile)
        try expectRuleError(#"<attribute name="d" attributeType="Date" maxDateTimeInterval="soon"/>"#, "maxDateTimeInterval", code: .invalidModelFile)
        try expectRuleError(#"<attribute name="x" attributeType="Double" regularExpressionString="[0-9]+"/>"#, "String attributes only")
    }

    func testAnInvalidSwiftRuleIsAModelErrorWhenTheModelIsBuilt() {
        XCTAssertThrowsError(try ManagedObjectModel(entities: [LengthOnANumber.self])) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidValidationRule, "\(error)")
            XCTAssertEqual((error as? ModelError)?.property, "count")
            XCTAssertTrue("\(error)".contains("not the length 1"), "\(error)")
        }
        XCTAssertThrowsError(try ManagedObjectModel(entities: [BadPattern.self])) { error in
            XCTAssertEqual((error as? ModelError)?.code, .invalidValidationRule, "\(error)")
            XCTAssertTrue("\(error)".contains("\"[a-z\""), "\(error)")
        }
    }
}

/// How bounds meet values of other precisions, on a real store: a Float attribute's bounds
/// are rounded to Float; an integer attribute's fractional bounds are rounded inwards.
final class ValidationRuleBoundTests: StoreTestCase {
    static let xml = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Reading" syncable="YES">
            <attribute name="ratio" optional="YES" attributeType="Float" minValueString="-0.1" maxValueString="0.1" usesScalarValueType="YES"/>
            <attribute name="count" optional="YES" attributeType="Integer 32" minValueString="0.5" maxValueString="2.5" usesScalarValueType="YES"/>
            <attribute name="blob" optional="YES" attributeType="Binary" maxValueString="3"/>
        </entity>
    </model>
    """

    /// The keys a save of one Reading with these values refuses (rolled back after).
    private func refusedKeys(_ context: ManagedObjectContext, _ values: [String: Any]) throws -> Set<String> {
        let reading = try context.insertNewObject(forEntityName: "Reading")
        for (key, value) in values { try reading.setValue(value, forKey: key) }
        defer { context.rollback() }
        do {
            try context.save()
            return []
        } catch let error as ValidationError {
            return Set(error.problems.compactMap(\.key))
        }
    }

    func testFloatAndIntegerBoundsAndBinaryLengths() throws {
        let url = directory.appendingPathComponent("contents")
        try Data(Self.xml.utf8).write(to: url)
        let container = try PersistentContainer(name: "Readings", model: ManagedObjectModel(contentsOf: url), storeURL: storeURL)
        let context = container.viewContext
        XCTAssertEqual(try refusedKeys(context, ["ratio": Float(0.1), "count": Int32(1)]), [])
        XCTAssertEqual(try refusedKeys(context, ["ratio": Float(-0.1), "count": Int32(2)]), [])
        XCTAssertEqual(try refusedKeys(context, ["ratio": Float(0.1).nextUp, "count": Int32(0)]), ["ratio", "count"])
        XCTAssertEqual(try refusedKeys(context, ["ratio": Float(-0.1).nextDown, "count": Int32(3)]), ["ratio", "count"])
        XCTAssertEqual(try refusedKeys(context, ["blob": Data([1, 2, 3])]), [])
        XCTAssertEqual(try refusedKeys(context, ["blob": Data([1, 2, 3, 4])]), ["blob"])
    }

    /// Random rules of every kind written by contentsXML and read back: the same rules, and
    /// the same XML again. `VALIDATION_RULES_XML_SEED` picks the seed.
    func testRandomRulesSurviveTheModelsXML() throws {
        let seed = ProcessInfo.processInfo.environment["VALIDATION_RULES_XML_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        var state = seed
        func next() -> UInt64 {   // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let numbers = ["0", "-1", "0.1", "1e-7", "123456789012", "-9223372036854775808", "9223372036854775807", "1e+20", "2.5", "-0.000001"]
        var attributes: [String] = []
        for index in 0..<60 {
            let kind = next() % 4
            let pick = { numbers[Int(next() % UInt64(numbers.count))] }
            switch kind {
            case 0:
                let type = ["Integer 16", "Integer 32", "Integer 64", "Double", "Float", "Decimal"][Int(next() % 6)]
                let (a, b) = (pick(), pick())
                let (low, high) = Double(a)! <= Double(b)! ? (a, b) : (b, a)
                attributes.append(#"<attribute name="n\#(index)" optional="YES" attributeType="\#(type)" minValueString="\#(low)" maxValueString="\#(high)"/>"#)
            case 1:
                let (a, b) = (Double(next() % 1_000_000_000) / 1000 - 5000, Double(next() % 1_000_000_000) / 7)
                attributes.append(#"<attribute name="d\#(index)" optional="YES" attributeType="Date" minDateTimeInterval="\#(min(a, b))" maxDateTimeInterval="\#(max(a, b))"/>"#)
            case 2:
                let low = next() % 10
                attributes.append(#"<attribute name="s\#(index)" optional="YES" attributeType="String" minValueString="\#(low)" maxValueString="\#(low + next() % 10)" regularExpressionString="[a-z&amp;&lt;&quot;\\d]{0,\#(next() % 9)}"/>"#)
            default:
                attributes.append(#"<attribute name="b\#(index)" optional="YES" attributeType="Binary" maxValueString="\#(next() % 100)"/>"#)
            }
        }
        let xml = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Random" syncable="YES">
                \(attributes.joined(separator: "\n        "))
            </entity>
        </model>
        """
        let file = directory.appendingPathComponent("random-contents")
        try Data(xml.utf8).write(to: file)
        let model = try ManagedObjectModel(contentsOf: file)
        let read = try ManagedObjectModel.reading(contentsXML: model.contentsXML, file: file)
        for attribute in try XCTUnwrap(model.entitiesByName["Random"]).attributes {
            let again = (read.entitiesByName["Random"]?.property(named: attribute.name) as? AttributeDescription)?.validationRules
            XCTAssertEqual(again, attribute.validationRules, "seed \(seed): \(attribute.name)")
            XCTAssertFalse(attribute.validationRules.isEmpty, "seed \(seed): \(attribute.name)")
        }
        XCTAssertEqual(read.contentsXML, model.contentsXML, "seed \(seed)")
    }
}
