import Foundation

// Which stored property a Swift key path (`\Employee.age`, as a `#Predicate` or a
// `SortDescriptor` holds it) names. A property declared with `@Attribute` is a computed
// property in Swift, so neither reflection nor `AnyKeyPath.debugDescription` (which prints
// `\Employee.<computed 0x…>` in a binary without exported symbols) can name it; instead each
// key path is read on a probe object of its class whose attribute slots hold marker values
// (no context, no store, no KVC), once per class and key path.

/// What a key path of a managed object class names.
enum ModelKeyPathTarget: Sendable {
    case attribute(String)
    case toOne(String)
    case toMany(String)
    /// `\Employee.objectID`: the object itself.
    case identity
}

enum ModelKeyPaths {
    private struct CacheKey: Hashable, @unchecked Sendable {  // key paths are immutable values
        let keyPath: AnyKeyPath
    }

    private static let cache = Locked<[CacheKey: Result<ModelKeyPathTarget, FetchPredicateError>]>([:])

    /// The stored attribute or relationship `keyPath` reads on `managedClass`, whose value is
    /// of type `valueType`.
    ///
    /// - Throws: ``FetchPredicateError`` (`unsupported`) naming the key path when it reads
    ///   anything else: a computed property, a plain stored property without a wrapper.
    static func target(of keyPath: AnyKeyPath, valueType: Any.Type, on managedClass: ManagedObject.Type) throws -> ModelKeyPathTarget {
        let key = CacheKey(keyPath: keyPath)
        if let known = cache.withLock({ $0[key] }) { return try known.get() }
        let result: Result<ModelKeyPathTarget, FetchPredicateError>
        do {
            result = .success(try resolve(keyPath, valueType: valueType, on: managedClass))
        } catch let error as FetchPredicateError {
            result = .failure(error)
        } catch {
            result = .failure(FetchPredicateError(.unsupported, "\(keyPath.debugDescription): \(error)", entity: "\(managedClass)"))
        }
        cache.withLock { $0[key] = result }
        return try result.get()
    }

    private static func resolve(_ keyPath: AnyKeyPath, valueType: Any.Type, on managedClass: ManagedObject.Type) throws -> ModelKeyPathTarget {
        let layout = ClassLayout.of(managedClass)
        if let relationshipType = valueType as? any RelationshipValue.Type {
            return try relationship(keyPath, type: relationshipType, in: layout)
        }
        let probe = Probe(layout)
        if valueType == ObjectID.self, let id = probe.object[keyPath: keyPath] as? ObjectID, id == probe.object.objectID {
            return .identity
        }
        if let name = probe.attribute(read: keyPath) { return .attribute(name) }
        let encoded = probe.transformableAttributes(accepting: keyPath)
        if !encoded.isEmpty {
            throw FetchPredicateError(.unsupported, "\(keyPath.debugDescription) (a \(valueType)) is not a stored attribute of \(managedClass) that a predicate can test: a value of its type is kept encoded (transformable: \(encoded.joined(separator: ", "))), which the stores cannot compare", entity: "\(managedClass)", key: keyPath.debugDescription)
        }
        throw notStored(keyPath, type: valueType, in: managedClass)
    }

    /// A relationship is told by reading the key path on a probe whose relationships answer
    /// with marker objects, one set per relationship: the key path names the relationship
    /// whose markers it returns unchanged (`RelationshipProbe`); a computed property that
    /// reads further (`mother?.mother`) or combines several returns no one's markers.
    private static func relationship(_ keyPath: AnyKeyPath, type: any RelationshipValue.Type, in layout: ClassLayout) throws -> ModelKeyPathTarget {
        let toMany = type.relationshipKind.isToMany
        let candidates = layout.propertiesByOrdinal.filter { _, property in
            guard case .relationship(let blueprint) = property.blueprint else { return false }
            return blueprint.kind.isToMany == toMany && blueprint.destination == type.destinationClass
        }
        guard !candidates.isEmpty else { throw notStored(keyPath, type: type, in: layout.managedClass) }
        let destination = ClassLayout.of(type.destinationClass)
        // Two markers per to-many, so a property that picks one member (`.first`) differs.
        let markers = Dictionary(uniqueKeysWithValues: candidates.keys.map { ordinal in
            (Int(ordinal), (0..<(toMany ? 2 : 1)).map { _ in Probe(destination).object })
        })
        let probe = Probe(layout)
        let returned = identities(in: RelationshipProbe(object: probe.object, markers: markers).read(keyPath))
        let matches = candidates.filter { ordinal, _ in Set(markers[Int(ordinal)]!.map(ObjectIdentifier.init)) == returned }
        guard matches.count == 1, let name = matches.first?.value.name else { throw notStored(keyPath, type: type, in: layout.managedClass) }
        return toMany ? .toMany(name) : .toOne(name)
    }

    /// The objects a relationship-typed value holds: none, one, or a collection's members.
    private static func identities(in value: Any?) -> Set<ObjectIdentifier> {
        guard let value else { return [] }
        if let object = value as? ManagedObject { return [ObjectIdentifier(object)] }
        guard let members = value as? any Sequence else { return [] }
        func objects<S: Sequence>(_ sequence: S) -> [ManagedObject] { sequence.compactMap { $0 as? ManagedObject } }
        return Set(objects(members).map(ObjectIdentifier.init))
    }

    private static func notStored(_ keyPath: AnyKeyPath, type valueType: Any.Type, in managedClass: ManagedObject.Type) -> FetchPredicateError {
        FetchPredicateError(.unsupported, "\(keyPath.debugDescription) (a \(valueType)) is not a stored attribute or relationship of \(managedClass): a computed property, or one without @Attribute or @Relationship, has no value in the store; test a stored property, or filter the fetched objects in memory", entity: "\(managedClass)", key: keyPath.debugDescription)
    }
}

/// An object of a class, belonging to no context and no model, whose attribute slots hold
/// marker values: reading a key path on it tells which attribute the key path reads.
private struct Probe {
    let object: ManagedObject
    let attributes: [(name: String, ordinal: Int, blueprint: AttributeBlueprint)]
    /// Each attribute's code: its index with a leading 1 bit, so a property that reads an
    /// attribute and changes it (`!active`, `age * 2`) matches no code.
    private let bits: Int

    init(_ layout: ClassLayout) {
        var attributes: [(name: String, ordinal: Int, blueprint: AttributeBlueprint)] = []
        for (ordinal, property) in layout.propertiesByOrdinal.sorted(by: { $0.key < $1.key }) {
            if case .attribute(let blueprint) = property.blueprint { attributes.append((property.name, Int(ordinal), blueprint)) }
        }
        self.attributes = attributes
        var bits = 1
        while 1 << bits < attributes.count { bits += 1 }
        self.bits = bits
        let count = Int(layout.wrapperCount)
        let entity = EntityDescription(name: "(key path probe of \(layout.managedClass))", managedClass: layout.managedClass)
        entity.wrapperCount = layout.wrapperCount
        entity.slotByOrdinal = Array(0..<count)
        entity.newObjectTemplate = ContiguousArray(repeating: .null, count: count)
        entity.attributeAtSlot = Array(repeating: nil, count: count)
        entity.relationshipAtSlot = (0..<count).map { slot in
            guard case .relationship(let blueprint)? = layout.propertiesByOrdinal[Int32(slot)]?.blueprint else { return nil }
            return RelationshipDescription(name: layout.propertiesByOrdinal[Int32(slot)]!.name, kind: blueprint.kind, deleteRule: blueprint.deleteRule,
                                           isOptional: true, slot: slot, entity: entity)
        }
        object = layout.managedClass.init(entity: entity, insertInto: nil)
    }

    /// The attribute `keyPath` reads, if it reads one unchanged.
    func attribute(read keyPath: AnyKeyPath) -> String? {
        let rounds = bits + 1
        var readings: [Any?] = []
        for round in 0..<rounds {
            for (index, attribute) in attributes.enumerated() {
                let bit = (code(index) >> round) & 1
                object.values[attribute.ordinal] = Self.marker(attribute.blueprint.attributeType, bit) ?? attribute.blueprint.defaultValue()
            }
            guard let value = object[keyPath: keyPath] else { return nil }
            readings.append(value)
        }
        let matches = attributes.indices.filter { index in
            let attribute = attributes[index]
            guard Self.marker(attribute.blueprint.attributeType, 0) != nil else { return false }
            return (0..<rounds).allSatisfy { round in
                attribute.blueprint.conversion.fromAny(readings[round]) == Self.marker(attribute.blueprint.attributeType, (code(index) >> round) & 1)
            }
        }
        return matches.count == 1 ? attributes[matches[0]].name : nil
    }

    /// The transformable (`Codable`) attributes whose type the value `keyPath` reads has.
    func transformableAttributes(accepting keyPath: AnyKeyPath) -> [String] {
        let value = object[keyPath: keyPath]
        return attributes.filter { $0.blueprint.attributeType == .transformable && $0.blueprint.conversion.fromAny(value) != nil }.map(\.name)
    }

    private func code(_ index: Int) -> Int { 1 << bits | index }

    /// Two stored values of each attribute type (none for transformable values).
    static func marker(_ type: AttributeType, _ bit: Int) -> SlotValue? {
        let one = bit == 1
        switch type {
        case .integer16, .integer32, .integer64: return .int(one ? 13 : 7)
        case .boolean: return .int(one ? 1 : 0)
        case .double, .float: return .double(one ? 13.5 : 7.5)
        case .decimal: return .decimal(one ? 13 : 7)
        case .string: return .text(one ? "\u{1}probe13" : "\u{1}probe7")
        case .date: return .double(one ? 13 : 7)
        case .uuid: return .uuid(UUID(uuid: (one ? 13 : 7, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 1)))
        case .binary: return .blob(Data([one ? 13 : 7]))
        case .uri: return .url(URL(string: one ? "probe:13" : "probe:7")!)
        case .transformable: return nil
        }
    }
}
