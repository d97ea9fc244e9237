import Foundation

// The migration generator's plain-Swift side: model versions as values (rendered as model
// file XML), random rows, random changes between two versions, and the reference
// transformation of the rows that a lightweight migration must give.

/// The generator's seeded random numbers (IdentityMapTests' SplitMix).
typealias GeneratorRandom = SplitMix

extension SplitMix {
    mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// An attribute type the generator uses, with its model file spelling.
enum GenType: String, CaseIterable {
    case integer16 = "Integer 16", integer32 = "Integer 32", integer64 = "Integer 64"
    case double = "Double", decimal = "Decimal", string = "String", boolean = "Boolean", date = "Date"

    var isInteger: Bool { [.integer16, .integer32, .integer64].contains(self) }
    var isReal: Bool { [.double, .decimal].contains(self) }
}

/// A stored value, as the generator compares them.
enum GenValue: Hashable, CustomStringConvertible {
    case integer(Int64)
    case real(Double)
    case text(String)
    case boolean(Bool)
    case date(Double)   // seconds since 2001

    var description: String {
        switch self {
        case .integer(let v): return "\(v)"
        case .real(let v): return "\(v)"
        case .text(let v): return "\"\(v)\""
        case .boolean(let v): return v ? "YES" : "NO"
        case .date(let v): return "date(\(v))"
        }
    }

    /// The model file spelling of this value as a default.
    var defaultString: String {
        switch self {
        case .integer(let v): return "\(v)"
        case .real(let v): return "\(v)"
        case .text(let v): return v
        case .boolean(let v): return v ? "YES" : "NO"
        case .date(let v): return "\(v)"
        }
    }
}

struct GenAttribute {
    var name: String
    var type: GenType
    var isOptional: Bool
    var defaultValue: GenValue?
    var renamedFrom: String?
}

struct GenRelationship {
    var name: String
    var destination: String
    var isToMany: Bool
    var inverse: String
    var renamedFrom: String?
}

struct GenEntity {
    var name: String
    var parent: String?
    var renamedFrom: String?
    var attributes: [GenAttribute] = []
    var relationships: [GenRelationship] = []
}

/// One model version.
struct GenModel {
    var entities: [GenEntity]

    func entity(_ name: String) -> GenEntity? { entities.first { $0.name == name } }

    /// `name` and the entities above it, topmost last.
    func ancestry(_ name: String) -> [GenEntity] {
        var result: [GenEntity] = []
        var current = entity(name)
        while let found = current, !result.contains(where: { $0.name == found.name }) {
            result.append(found)
            current = found.parent.flatMap(entity)
        }
        return result
    }

    func root(of name: String) -> String { ancestry(name).last?.name ?? name }

    /// Every attribute of `name`, inherited ones included.
    func attributes(of name: String) -> [GenAttribute] { ancestry(name).reversed().flatMap(\.attributes) }

    func relationships(of name: String) -> [GenRelationship] { ancestry(name).reversed().flatMap(\.relationships) }

    func propertyNames(of name: String) -> Set<String> {
        Set(attributes(of: name).map(\.name) + relationships(of: name).map(\.name))
    }

    /// `name` and every entity below it.
    func family(of name: String) -> [String] {
        entities.filter { ancestry($0.name).contains { $0.name == name } }.map(\.name)
    }

    /// The entity whose relationship `relationship` of `entity` is the inverse.
    func inverse(of relationship: GenRelationship) -> GenRelationship? {
        relationships(of: relationship.destination).first { $0.name == relationship.inverse }
    }

    /// Model file XML.
    var xml: String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
                     #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">"#]
        for entity in entities {
            var head = #"    <entity name="\#(entity.name)" representedClassName="\#(entity.name)""#
            if let parent = entity.parent { head += #" parentEntity="\#(parent)""# }
            if let old = entity.renamedFrom { head += #" elementID="\#(old)""# }
            lines.append(head + ">")
            for attribute in entity.attributes {
                var line = #"        <attribute name="\#(attribute.name)""#
                if attribute.isOptional { line += #" optional="YES""# }
                line += #" attributeType="\#(attribute.type.rawValue)""#
                if let value = attribute.defaultValue { line += #" defaultValueString="\#(value.defaultString)""# }
                if attribute.type.isInteger || [.double, .boolean].contains(attribute.type) { line += #" usesScalarValueType="YES""# }
                if let old = attribute.renamedFrom { line += #" elementID="\#(old)""# }
                lines.append(line + "/>")
            }
            for relationship in entity.relationships {
                let destinationRoot = relationship.destination
                var line = #"        <relationship name="\#(relationship.name)" optional="YES""#
                line += relationship.isToMany ? #" toMany="YES""# : #" maxCount="1""#
                line += #" deletionRule="Nullify" destinationEntity="\#(destinationRoot)" inverseName="\#(relationship.inverse)" inverseEntity="\#(destinationRoot)""#
                if let old = relationship.renamedFrom { line += #" elementID="\#(old)""# }
                lines.append(line + "/>")
            }
            lines.append("    </entity>")
        }
        lines.append("</model>")
        return lines.joined(separator: "\n")
    }
}

/// One object of the generated rows: its entity, its identity (`ident`, unique over all
/// rows), its attribute values and relationship destinations (by identity).
struct GenObject {
    var entity: String
    var ident: Int64
    var values: [String: GenValue] = [:]          // nil values are absent
    var toOne: [String: Int64] = [:]
    var toMany: [String: Set<Int64>] = [:]
}
