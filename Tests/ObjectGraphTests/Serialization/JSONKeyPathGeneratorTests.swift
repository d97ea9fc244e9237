import Foundation
import ObjectGraph
import XCTest

/// Random model files with MagicalRecord's `mappedKeyName` rules (key paths, fallbacks
/// `mappedKeyName.1`…) and random code mappings over them, random records that put each
/// value under one of an attribute's keys (with decoys under the later ones), checked against
/// a plain reference of what the import must store: the value under the first key present,
/// a number as its exact text, records with the same related-by value one object. Then the
/// export with the same mapping is imported into an empty store and must read back the same.
///
///     MANAGEDRECORD_JSON_KEYPATH_CASES=2000 MANAGEDRECORD_JSON_KEYPATH_SEED=1 swift test --filter JSONKeyPathGeneratorTests
final class JSONKeyPathGeneratorTests: StoreTestCase {
    func testRandomKeyPathsAndFallbacksStoreWhatTheReferenceSays() throws {
        let environment = ProcessInfo.processInfo.environment
        let first = environment["MANAGEDRECORD_JSON_KEYPATH_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...1_000_000)
        let cases = environment["MANAGEDRECORD_JSON_KEYPATH_CASES"].flatMap(Int.init) ?? 25
        for seed in first..<first + UInt64(cases) {
            do {
                try run(seed: seed)
            } catch {
                XCTFail("\(error)\nreproduce: MANAGEDRECORD_JSON_KEYPATH_SEED=\(seed) MANAGEDRECORD_JSON_KEYPATH_CASES=1 swift test --filter JSONKeyPathGeneratorTests")
                return
            }
        }
    }

    /// What one case failed on, with the model, mapping and records to see why.
    private struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// A JSON value as the test writes it: numbers keep their text.
    private indirect enum Value {
        case string(String)
        case number(String)
        case object([(String, Value)])

        var text: String {
            switch self {
            case .string(let text): return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            case .number(let text): return text
            case .object(let members): return "{" + members.map { Value.string($0.0).text + ": " + $0.1.text }.joined(separator: ", ") + "}"
            }
        }

        /// What a String attribute stores of it.
        var stored: String {
            switch self {
            case .string(let text), .number(let text): return text
            case .object: return "?"
            }
        }
    }

    /// Puts `value` at `path`, making (or joining) the nested objects.
    private static func put(_ value: Value, at path: ArraySlice<String>, into members: inout [(String, Value)]) {
        let key = path.first!
        let index = members.firstIndex { $0.0 == key }
        if path.count == 1 {
            if index == nil { members.append((key, value)) }
            return
        }
        var nested: [(String, Value)] = []
        if let index, case .object(let existing) = members[index].1 { nested = existing }
        put(value, at: path.dropFirst(), into: &nested)
        if let index { members[index].1 = .object(nested) } else { members.append((key, .object(nested))) }
    }

    private struct Attribute {
        let name: String
        /// The keys the import must try, in order, split at their dots.
        let candidates: [[String]]
        let userInfo: [(String, String)]
        let codeKey: String?
    }

    private func run(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        var leaves = 0
        func path() -> String {
            leaves += 1
            let depth = Int.random(in: 0...2, using: &random)
            let roots = (0..<depth).map { _ in "r\(Int.random(in: 0...2, using: &random))" }
            return (roots + ["k\(leaves)"]).joined(separator: ".")
        }
        // `ident` (the related-by attribute) and a few strings, each with its own rules.
        let names = ["ident"] + (0..<Int.random(in: 1...5, using: &random)).map { "text\($0)" }
        var attributes: [Attribute] = []
        for name in names {
            var info: [(String, String)] = []
            var candidates: [String]
            if Bool.random(using: &random) {
                let primary = path()
                info.append(("mappedKeyName", primary))
                candidates = [primary]
            } else {
                candidates = [name]
            }
            for number in 1...Int.random(in: 1...4, using: &random) where number < 4 {
                let fallback = path()
                info.append(("mappedKeyName.\(number)", fallback))
                candidates.append(fallback)
            }
            // A key in code replaces all of them.
            let codeKey = Int.random(in: 0..<4, using: &random) == 0 ? path() : nil
            if let codeKey { candidates = [codeKey] }
            attributes.append(Attribute(name: name, candidates: candidates.map { $0.split(separator: ".").map(String.init) },
                                        userInfo: info, codeKey: codeKey))
        }
        let model = try makeModel(attributes, seed: seed)
        var mapping = JSONMapping()
        for attribute in attributes { if let key = attribute.codeKey { mapping.keys["Thing", default: [:]][attribute.name] = key } }

        // Records, and the reference: by ident, each attribute's text (nil: never given).
        var records: [Value] = []
        var reference: [String: [String: String]] = [:]
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            var members: [(String, Value)] = []
            var values: [String: String] = [:]
            for attribute in attributes {
                let isIdent = attribute.name == "ident"
                if !isIdent && Int.random(in: 0..<4, using: &random) == 0 { continue }
                let chosen = Int.random(in: 0..<attribute.candidates.count, using: &random)
                let value: Value = isIdent ? .number("\(Int.random(in: 0...3, using: &random))") : randomValue(&random)
                Self.put(value, at: attribute.candidates[chosen][...], into: &members)
                values[attribute.name] = value.stored
                // Decoys under later keys: the first key present wins.
                for later in attribute.candidates.indices.dropFirst(chosen + 1) where Bool.random(using: &random) {
                    Self.put(randomValue(&random), at: attribute.candidates[later][...], into: &members)
                }
            }
            records.append(.object(members))
            let ident = values["ident"]!
            reference[ident, default: [:]].merge(values) { $1 }
        }
        let json = "[" + records.map(\.text).joined(separator: ",\n ") + "]"
        let describe = { "seed \(seed)\nrules: \(attributes.map { "\($0.name): \($0.candidates.map { $0.joined(separator: ".") }) code \($0.codeKey ?? "-")" })\nrecords: \(json)" }

        let folder = directory.appendingPathComponent("case-\(seed)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let container = try PersistentContainer(name: "Generated", model: model, storeURL: folder.appendingPathComponent("A.sqlite"))
        try container.viewContext.importJSON(Data(json.utf8), entityName: "Thing", options: { var o = JSONImportOptions(); o.mapping = mapping; return o }())
        let stored = try contents(of: container, attributes)
        guard stored == reference else {
            throw Mismatch(description: "the import stored \(stored), the reference says \(reference)\n\(describe())")
        }

        // The export with the same mapping, imported into an empty store, reads back the same.
        var export = JSONExportOptions(mapping: mapping)
        export.includesNullValues = false
        let exported = try container.viewContext.exportJSON(FetchRequest<ManagedObject>(entityName: "Thing"), options: export)
        let copy = try PersistentContainer(name: "Generated", model: model, storeURL: folder.appendingPathComponent("B.sqlite"))
        try copy.viewContext.importJSON(exported, entityName: "Thing", options: { var o = JSONImportOptions(); o.mapping = mapping; return o }())
        let again = try contents(of: copy, attributes)
        guard again == reference else {
            throw Mismatch(description: "exported \(String(decoding: exported, as: UTF8.self)) and imported back \(again), the reference says \(reference)\n\(describe())")
        }
    }

    private func randomValue(_ random: inout SplitMix) -> Value {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .number("\(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random))")
        case 1: return .number("\(Int.random(in: 0...999, using: &random)).\(["0", "50", "125", "000"].randomElement(using: &random)!)")
        default:
            let alphabet = Array("abcXYZ .é😀\"\\/")
            return .string(String((0..<Int.random(in: 0...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
        }
    }

    /// Every object's values: by ident, the attributes that hold a value.
    private func contents(of container: PersistentContainer, _ attributes: [Attribute]) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for object in try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Thing")) {
            let ident = "\(object.value(forKey: "ident") as? Int64 ?? -1)"
            guard result[ident] == nil else { throw Mismatch(description: "two objects with ident \(ident)") }
            var values: [String: String] = ["ident": ident]
            for attribute in attributes where attribute.name != "ident" {
                if let text = object.value(forKey: attribute.name) as? String { values[attribute.name] = text }
            }
            result[ident] = values
        }
        return result
    }

    /// An Xcode model file with one entity `Thing`, matched by `ident`, with the rules as user info.
    private func makeModel(_ attributes: [Attribute], seed: UInt64) throws -> ManagedObjectModel {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
        }
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        xml += #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">"# + "\n"
        xml += #"    <entity name="Thing" representedClassName="Thing" syncable="YES">"# + "\n"
        for attribute in attributes {
            let type = attribute.name == "ident" ? "Integer 64" : "String"
            xml += #"        <attribute name="\#(attribute.name)" optional="YES" attributeType="\#(type)" syncable="YES""#
            if attribute.userInfo.isEmpty {
                xml += "/>\n"
                continue
            }
            xml += ">\n            <userInfo>\n"
            for (key, value) in attribute.userInfo { xml += #"                <entry key="\#(escaped(key))" value="\#(escaped(value))"/>"# + "\n" }
            xml += "            </userInfo>\n        </attribute>\n"
        }
        xml += "        <userInfo>\n" + #"            <entry key="relatedByAttribute" value="ident"/>"# + "\n        </userInfo>\n"
        xml += "    </entity>\n</model>\n"
        let url = directory.appendingPathComponent("Generated-\(seed).xcdatamodel-contents.xml")
        try Data(xml.utf8).write(to: url)
        return try ManagedObjectModel(contentsOf: url)
    }
}
