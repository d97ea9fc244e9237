import Foundation

extension ManagedObjectModel {
    /// Gives the entities of a model file their classes: a class in `classes` for the entity
    /// it matches (see ``entityIndex(for:in:indexByName:file:)``), the parent entity's class
    /// for a class-less sub-entity, and `ManagedObject` otherwise.
    ///
    /// Checked here so that no cast elsewhere can fail: every class's superclass chain
    /// includes its parent entity's class (a typed fetch only ever meets instances of its
    /// type), and every `@Attribute`/`@Relationship` of a class is a property of its entity
    /// with a fitting type (a relationship's destination class included).
    static func bind(_ classes: [ManagedObject.Type], to specs: inout [EntitySpecification], file: URL) throws {
        var indexByName: [String: Int] = [:]
        for (index, spec) in specs.enumerated() { indexByName[spec.name] = index }
        var explicit: [String: ManagedObject.Type] = [:]
        for cls in classes {
            let name = specs[try entityIndex(for: cls, in: specs, indexByName: indexByName, file: file)].name
            guard explicit.updateValue(cls, forKey: name) == nil else {
                throw ModelError(.duplicateEntity, entity: name, "two classes are given for entity \(name)", file: file)
            }
        }

        // Parents before children, with loops caught.
        var resolved: [String: ManagedObject.Type] = [:]
        func resolve(_ name: String, _ path: [String]) throws -> ManagedObject.Type {
            if let cls = resolved[name] { return cls }
            guard !path.contains(name) else {
                throw ModelError(.invalidModelFile, entity: name, "the parent entities form a loop: \((path + [name]).joined(separator: " -> "))", file: file)
            }
            guard let index = indexByName[name] else { return ManagedObject.self }   // the model reports the unknown parent
            let parentClass = try specs[index].parent.map { try resolve($0, path + [name]) } ?? ManagedObject.self
            let cls = explicit[name] ?? parentClass
            guard isClass(cls, kindOf: parentClass) else {
                throw ModelError(.classMismatch, entity: name, "\(cls) must be a subclass of \(parentClass), the class of its parent entity \(specs[index].parent ?? "")", file: file)
            }
            resolved[name] = cls
            return cls
        }
        for spec in specs { _ = try resolve(spec.name, []) }

        for index in specs.indices {
            let cls = resolved[specs[index].name]!
            specs[index].managedClass = cls
            guard cls != ManagedObject.self else { continue }
            let layout = ClassLayout.of(cls)
            for property in layout.propertiesByOrdinal.values {
                try check(property, of: cls, in: &specs, at: index, indexByName: indexByName, resolved: resolved, file: file)
                specs[index].ordinals[property.name] = property.ordinal
            }
            specs[index].wrapperCount = layout.wrapperCount
        }
        BoundEntityNames.note(explicit)
    }

    /// The entity `cls` is for: the one its `entityName` names, else the one whose
    /// `representedClassName` is the class's Swift name. Xcode writes that name bare
    /// (`EmployeeMO`), with a leading dot for the current module (`.EmployeeMO`) or with the
    /// app's module (`MyApp.EmployeeMO`); the module is ignored, as the classes are compiled
    /// into another one here. When the name is the class of several entities (sub-entities
    /// sharing their parent's class), the topmost of them is the one.
    ///
    /// - Throws: ``ModelError`` `.classMismatch` naming the class and the file's entities
    ///   with their class names when nothing matches, or when two unrelated entities do.
    private static func entityIndex(for cls: ManagedObject.Type, in specs: [EntitySpecification], indexByName: [String: Int],
                                    file: URL) throws -> Int {
        if let index = indexByName[cls.entityName] { return index }
        let swiftName = String(describing: cls)
        let matching = specs.indices.filter { specs[$0].fileDetails.className.map(unqualified) == swiftName }
        // Leave out the entities whose parent matches too: they share its class.
        let topmost = matching.filter { index in
            !matching.contains { other in other != index && isEntity(specs[index].name, below: specs[other].name, in: specs, indexByName: indexByName) }
        }
        if topmost.count == 1 { return topmost[0] }
        let listed = specs.map { spec in
            spec.fileDetails.className.map { $0 == spec.name ? spec.name : "\(spec.name) (class \($0))" } ?? spec.name
        }.sorted().joined(separator: ", ")
        if topmost.isEmpty {
            throw ModelError(.classMismatch, entity: cls.entityName, "\(cls) matches no entity of \(file.path): no entity is named \(cls.entityName) or has \(swiftName) as its class (representedClassName). The file has: \(listed). Name the class after an entity's class, or override `class var entityName` to name the entity", file: file)
        }
        let names = topmost.map { specs[$0].name }.sorted().joined(separator: ", ")
        throw ModelError(.classMismatch, entity: cls.entityName, "\(cls) is the class (representedClassName) of several unrelated entities of \(file.path): \(names); override `class var entityName` to name one", file: file)
    }

    /// `MyApp.Employee` and `.Employee` as `Employee`.
    private static func unqualified(_ className: String) -> String {
        className.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? className
    }

    /// Whether entity `name` is a sub-entity (at any depth) of `ancestor`.
    private static func isEntity(_ name: String, below ancestor: String, in specs: [EntitySpecification], indexByName: [String: Int]) -> Bool {
        var seen: Set<String> = [name]
        var current = indexByName[name].flatMap { specs[$0].parent }
        while let parent = current, seen.insert(parent).inserted {
            if parent == ancestor { return true }
            current = indexByName[parent].flatMap { specs[$0].parent }
        }
        return false
    }

    /// Whether `cls` is `ancestor` or one of its subclasses (`ManagedObject` is everyone's).
    private static func isClass(_ cls: ManagedObject.Type, kindOf ancestor: ManagedObject.Type) -> Bool {
        if ancestor == ManagedObject.self { return true }
        var current: ManagedObject.Type? = cls
        while let candidate = current {
            if candidate == ancestor { return true }
            if candidate == ManagedObject.self { return false }
            current = ClassLayout.of(candidate).managedSuperclass
        }
        return false
    }

    /// A property wrapper of `cls` against the entity's property of that name (own or inherited).
    private static func check(_ property: ClassLayout.Property, of cls: ManagedObject.Type, in specs: inout [EntitySpecification], at index: Int,
                              indexByName: [String: Int], resolved: [String: ManagedObject.Type], file: URL) throws {
        let entityName = specs[index].name
        func mismatch(_ message: String) -> ModelError {
            ModelError(.classMismatch, entity: entityName, property: property.name, "\(cls).\(property.name) \(message)", file: file)
        }
        var owner: Int? = index
        var declared: EntitySpecification.Property?
        while let current = owner, declared == nil {
            declared = specs[current].properties.first { $0.name == property.name }
            if declared == nil { owner = specs[current].parent.flatMap { indexByName[$0] } }
        }
        switch (property.blueprint, declared) {
        case (_, nil):
            throw mismatch("is not a property of entity \(entityName) in the model file; remove it or add it to the model")
        case (.attribute(let blueprint), .attribute(let name, let type, let isOptional, let isTransient, let defaultValue, _)?):
            let integers: Set<AttributeType> = [.integer16, .integer32, .integer64]
            let bytes: Set<AttributeType> = [.binary, .transformable]
            guard blueprint.attributeType == type || (integers.contains(type) && integers.contains(blueprint.attributeType))
                    || (bytes.contains(type) && blueprint.attributeType == .binary) else {
                throw mismatch("is declared as \(blueprint.conversion.swiftTypeName), but the file's attribute is \(type.rawValue) (declare it as \(type.swiftTypeName))")
            }
            guard blueprint.isOptional || !isOptional || isTransient else {
                throw mismatch("is not optional, but the file's attribute is: declare it as \(blueprint.conversion.swiftTypeName)?")
            }
            // The class's own attributes read and write through its Swift types; the file's
            // default is kept when it has one.
            if owner == index, let position = specs[index].properties.firstIndex(where: { $0.name == name }) {
                specs[index].properties[position] = .attribute(name: name, type: type, isOptional: isOptional, isTransient: isTransient,
                                                               defaultValue: defaultValue ?? blueprint.defaultValue, conversion: blueprint.conversion)
            }
        case (.relationship(let blueprint), .relationship(_, let kind, let destination, _, _, _)?):
            guard blueprint.kind == kind else {
                throw mismatch("is declared \(blueprint.kind.rawValue), but the file's relationship is \(kind.rawValue)")
            }
            let target = resolved[destination] ?? ManagedObject.self
            guard isClass(target, kindOf: blueprint.destination) else {
                throw mismatch("holds \(blueprint.destination), but objects of its destination \(destination) are \(target); give \(blueprint.destination).self for \(destination) in `classes`")
            }
        default:
            throw mismatch("is an attribute in one place and a relationship in the other")
        }
    }
}

/// The entity names classes were bound to by their `representedClassName` in a model file,
/// so that such a class's ``ManagedObject/entityName`` names its entity (as Core Data's
/// `+entity` finds it in the loaded models) without an override: `BatchDeleteRequest(EmployeeMO.self)`
/// then deletes `Employee` objects. The latest model read decides.
enum BoundEntityNames {
    private static let names = Locked([ObjectIdentifier: String]())

    /// Remembers the entity of each class whose Swift name is not its entity's name.
    static func note(_ classes: [String: ManagedObject.Type]) {
        let renamed = classes.filter { $0.key != String(describing: $0.value) }
        guard !renamed.isEmpty else { return }
        names.withLock { names in
            for (entity, cls) in renamed { names[ObjectIdentifier(cls)] = entity }
        }
    }

    /// The entity `cls` was bound to by a model file, if it was bound by its class name.
    static func entityName(of cls: ManagedObject.Type) -> String? {
        names.withLock { $0[ObjectIdentifier(cls)] }
    }
}
