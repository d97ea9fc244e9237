import Foundation

/// Turns the XML of one Xcode model version (`contents`) into entity specifications, the
/// same ones Swift classes produce, so the rest of the stack has one path.
///
/// Names come from a file and end up in SQL identifiers (`Z` + name): each entity and
/// property name must be a plain identifier (letters, digits, `_`, not starting with a digit),
/// as Xcode itself requires; anything else is a ``ModelError/Code/invalidModelFile``.
struct ModelFileReader {
    let file: URL
    /// Whether names must be plain identifiers: true for a model file; false for the model a
    /// store keeps, whose names the model builder already accepted (a Swift model's names
    /// may be any Swift identifier, `café` included).
    var requiresPlainIdentifiers = true

    func specifications(of root: ModelFileElement) throws -> (entities: [EntitySpecification], identifier: String?) {
        guard root.name == "model" else {
            throw error(root, "the root element is <\(root.name)>, not <model>: this is not an Xcode model's contents file")
        }
        var entities: [EntitySpecification] = []
        for element in root.children(named: "entity") { entities.append(try entity(element)) }
        let identifier = root.attributes["userDefinedModelVersionIdentifier"].flatMap { $0.isEmpty ? nil : $0 }
        return (entities, identifier)
    }

    private func entity(_ element: ModelFileElement) throws -> EntitySpecification {
        let name = try identifier(element)
        var spec = EntitySpecification(name: name, managedClass: ManagedObject.self, parent: element.attributes["parentEntity"],
                                       isAbstract: flag(element, "isAbstract"), properties: [])
        spec.fileDetails.className = element.attributes["representedClassName"]
        spec.fileDetails.userInfo = userInfo(element)
        spec.fileDetails.renamingIdentifier = element.attributes["elementID"]
        spec.fileDetails.versionHashModifier = element.attributes["versionHashModifier"]
        for child in element.children {
            switch child.name {
            case "attribute":
                let (property, details, rules) = try attribute(child, entity: name)
                spec.properties.append(property)
                spec.propertyFileDetails[property.name] = details
                if !rules.isEmpty { spec.attributeRules[property.name] = rules }
            case "relationship":
                let (property, details) = try relationship(child, entity: name)
                spec.properties.append(property)
                spec.propertyFileDetails[property.name] = details
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    spec.fileDetails.uniquenessConstraints.append(constraint.children(named: "constraint").compactMap { $0.attributes["value"] })
                }
            case "fetchIndex":
                let elements = child.children(named: "fetchIndexElement").compactMap { index in
                    index.attributes["property"].map { FetchIndexDescription.Element(property: $0, ascending: index.attributes["order"] != "descending") }
                }
                spec.fileDetails.fetchIndexes.append(FetchIndexDescription(name: child.attributes["name"] ?? "", elements: elements))
            case "compoundIndexes":
                for compound in child.children(named: "compoundIndex") {
                    let elements = compound.children(named: "index").compactMap { $0.attributes["value"] }.map { FetchIndexDescription.Element(property: $0, ascending: true) }
                    spec.fileDetails.fetchIndexes.append(FetchIndexDescription(name: "", elements: elements))
                }
            case "userInfo", "fetchedProperty":
                continue   // user info read above; fetched properties are not loaded (docs/modelling.md)
            default:
                throw error(child, "entity \(name) has an element this framework does not know")
            }
        }
        return spec
    }

    private func attribute(_ element: ModelFileElement, entity: String) throws
        -> (EntitySpecification.Property, PropertyFileDetails, AttributeValidationRules) {
        let name = try identifier(element)
        guard let typeName = element.attributes["attributeType"] else {
            throw error(element, "the attribute has no attributeType")
        }
        guard let type = AttributeType(rawValue: typeName) else {
            throw error(element, "attribute type \"\(typeName)\" is not supported (supported: \(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var details = propertyDetails(element)
        details.defaultValueString = element.attributes["defaultValueString"] ?? element.attributes["defaultDateTimeInterval"]
        details.valueTransformerName = element.attributes["valueTransformerName"]
        details.customClassName = element.attributes["customClassName"]
        details.allowsExternalBinaryDataStorage = flag(element, "allowsExternalBinaryDataStorage")
        details.preservesValueInHistoryOnDeletion = flag(element, "preserveAfterDeletion")
        if flag(element, "derived") { details.derivationExpression = element.attributes["derivationExpression"] ?? "" }
        var defaultValue: (() -> SlotValue)?
        if let text = details.defaultValueString {
            guard let value = Self.defaultValue(text, type) else {
                throw error(element, "its default value \"\(text)\" is not a valid \(type.rawValue)")
            }
            defaultValue = { value }
        }
        let property = EntitySpecification.Property.attribute(
            name: name, type: type, isOptional: flag(element, "optional"), isTransient: flag(element, "transient"),
            defaultValue: defaultValue,
            conversion: type == .transformable ? .transformable(named: details.valueTransformerName, entity: entity, attribute: name) : .dynamic(type))
        return (property, details, try validationRules(element, type))
    }

    /// The attribute's validation rules as Xcode writes them: `minValueString` and
    /// `maxValueString` (a number; for a String or Binary attribute a length),
    /// `minDateTimeInterval` and `maxDateTimeInterval` (a date, seconds since 2001-01-01),
    /// `regularExpressionString`. A bound that does not parse is an error here; one that does
    /// not fit the type (or a bad expression) is refused when the model is built.
    private func validationRules(_ element: ModelFileElement, _ type: AttributeType) throws -> AttributeValidationRules {
        func bound(_ name: String) throws -> ValidationBound? {
            guard let text = element.attributes[name], !text.isEmpty else { return nil }
            let bound: ValidationBound?
            switch type {
            case _ where name.hasSuffix("DateTimeInterval"):
                bound = Double(text).flatMap { $0.isFinite ? .date(Date(timeIntervalSinceReferenceDate: $0)) : nil }
            case .string, .binary:
                bound = Int(text).flatMap { $0 >= 0 ? .length($0) : nil }
            case .decimal:
                bound = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
            default:
                bound = Int64(text).map { .integer($0) } ?? Double(text).flatMap { $0.isFinite ? .number($0) : nil }
            }
            guard let bound else {
                throw error(element, "its \(name) \"\(text)\" is not a valid bound for a \(type.rawValue) attribute")
            }
            return bound
        }
        let isDate = type == .date
        return AttributeValidationRules(
            minimum: try bound(isDate ? "minDateTimeInterval" : "minValueString"),
            maximum: try bound(isDate ? "maxDateTimeInterval" : "maxValueString"),
            pattern: element.attributes["regularExpressionString"].flatMap { $0.isEmpty ? nil : $0 })
    }

    private func relationship(_ element: ModelFileElement, entity: String) throws -> (EntitySpecification.Property, PropertyFileDetails) {
        let name = try identifier(element)
        guard let destination = element.attributes["destinationEntity"] else {
            throw error(element, "the relationship has no destinationEntity")
        }
        var details = propertyDetails(element)
        details.minCount = try count(element, "minCount") ?? 0
        details.maxCount = try count(element, "maxCount")
        let toMany = flag(element, "toMany")
        let kind: RelationshipKind = toMany ? (flag(element, "ordered") ? .orderedToMany : .toMany) : .toOne
        let rule: DeleteRule
        switch element.attributes["deletionRule"] ?? "Nullify" {
        case "Nullify": rule = .nullify
        case "Cascade": rule = .cascade
        case "Deny": rule = .deny
        case "No Action": rule = .noAction
        case let other: throw error(element, "deletion rule \"\(other)\" is not one of Nullify, Cascade, Deny, No Action")
        }
        if flag(element, "transient") { throw error(element, "transient relationships are not supported") }
        let property = EntitySpecification.Property.relationship(
            name: name, kind: kind, destination: destination, inverse: element.attributes["inverseName"],
            deleteRule: rule, isOptional: flag(element, "optional"))
        return (property, details)
    }

    // MARK: Parts

    private func propertyDetails(_ element: ModelFileElement) -> PropertyFileDetails {
        var details = PropertyFileDetails()
        details.userInfo = userInfo(element)
        details.renamingIdentifier = element.attributes["elementID"]
        details.versionHashModifier = element.attributes["versionHashModifier"]
        details.isIndexed = flag(element, "indexed")
        return details
    }

    private func userInfo(_ element: ModelFileElement) -> [String: String] {
        var info: [String: String] = [:]
        for wrapper in element.children(named: "userInfo") {
            for entry in wrapper.children(named: "entry") {
                if let key = entry.attributes["key"] { info[key] = entry.attributes["value"] ?? "" }
            }
        }
        return info
    }

    private func count(_ element: ModelFileElement, _ name: String) throws -> Int? {
        guard let text = element.attributes[name] else { return nil }
        guard let value = Int(text), value >= 0 else { throw error(element, "\(name) \"\(text)\" is not a count") }
        return value
    }

    private func flag(_ element: ModelFileElement, _ name: String) -> Bool {
        element.attributes[name] == "YES"
    }

    /// The element's name, checked to be a plain identifier (it becomes part of SQL names).
    private func identifier(_ element: ModelFileElement) throws -> String {
        guard let name = element.attributes["name"], !name.isEmpty else {
            throw error(element, "the element has no name")
        }
        guard !requiresPlainIdentifiers || Self.isPlainIdentifier(name) else {
            throw error(element, "the name \"\(name)\" is not a plain identifier (letters, digits and _, not starting with a digit)")
        }
        return name
    }

    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    private func error(_ element: ModelFileElement, _ message: String) -> ModelError {
        ModelError(.invalidModelFile, entity: nil, property: nil, message, file: file, element: element.label)
    }

    /// A default value as Xcode writes it: numbers, `YES`/`NO`, text, a date as seconds since
    /// 2001-01-01, a UUID or a URL.
    static func defaultValue(_ text: String, _ type: AttributeType) -> SlotValue? {
        switch type {
        case .integer16: return Int16(text).map { .int(Int64($0)) }
        case .integer32: return Int32(text).map { .int(Int64($0)) }
        case .integer64: return Int64(text).map { .int($0) }
        case .double: return Double(text).map { $0._encoded }
        case .float: return Float(text).map { $0._encoded }
        case .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { $0._encoded }
        case .string: return .text(text)
        case .boolean:
            switch text {
            case "YES", "1", "true": return true._encoded
            case "NO", "0", "false": return false._encoded
            default: return nil
            }
        case .date: return Double(text).map { Date(timeIntervalSinceReferenceDate: $0)._encoded }
        case .uuid: return UUID(uuidString: text).map { $0._encoded }
        case .uri: return URL(string: text).map { $0._encoded }
        case .binary, .transformable: return nil
        }
    }
}
