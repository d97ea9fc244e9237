import Foundation

/// The property wrappers of one `ManagedObject` subclass, found once by creating a prototype
/// and reflecting it with `Mirror`. Never per object.
final class ClassLayout: @unchecked Sendable {  // immutable after init; the prototype is only read
    struct Property {
        let name: String
        let ordinal: Int32
        let blueprint: PropertyBlueprint
    }

    let managedClass: ManagedObject.Type
    /// The class's own properties (not its superclasses'), in declaration order.
    let ownProperties: [Property]
    /// Every wrapper of an instance, including inherited ones, by ordinal.
    let propertiesByOrdinal: [Int32: Property]
    let wrapperCount: Int32
    /// The superclass when it is a `ManagedObject` subclass (its entity is the superentity).
    let managedSuperclass: ManagedObject.Type?
    /// An instance that belongs to no context, used to read the ordinals behind key paths.
    let prototype: ManagedObject

    private static let cache = Locked<[ObjectIdentifier: ClassLayout]>([:])

    /// The layout of `managedClass`, built on first use.
    static func of(_ managedClass: ManagedObject.Type) -> ClassLayout {
        let key = ObjectIdentifier(managedClass)
        if let layout = cache.withLock({ $0[key] }) { return layout }
        let layout = ClassLayout(managedClass)
        return cache.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = layout
            return layout
        }
    }

    private init(_ managedClass: ManagedObject.Type) {
        self.managedClass = managedClass
        let (prototype, blueprints) = ReflectionRecorder.describe {
            managedClass.init(entity: EntityDescription.prototypeEntity, insertInto: nil)
        }
        self.prototype = prototype
        let superclass = Mirror(reflecting: prototype).superclassMirror?.subjectType as? ManagedObject.Type
        managedSuperclass = superclass == ManagedObject.self ? nil : superclass

        // Wrappers keep their ordinals in two bytes (`OrdinalProperty`).
        precondition(blueprints.count <= Int(Int16.max) + 1,
                     "ManagedRecord: \(managedClass) declares \(blueprints.count) properties; a class may declare at most \(Int(Int16.max) + 1)")
        var levels: [[Property]] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            var level: [Property] = []
            for child in current.children {
                guard let label = child.label, label.hasPrefix("_"),
                      let wrapper = child.value as? OrdinalProperty,
                      let blueprint = blueprints[wrapper.ordinal] else { continue }
                level.append(Property(name: String(label.dropFirst()), ordinal: wrapper.ordinal, blueprint: blueprint))
            }
            levels.append(level)
            mirror = current.superclassMirror
        }
        ownProperties = levels.first ?? []
        var byOrdinal: [Int32: Property] = [:]
        for property in levels.joined() { byOrdinal[property.ordinal] = property }
        propertiesByOrdinal = byOrdinal
        wrapperCount = Int32(blueprints.count)
    }

    /// The name of the property whose projected value `keyPath` reads (`\Employee.$age`).
    func propertyName(for keyPath: AnyKeyPath) -> String? {
        guard let reference = prototype[keyPath: keyPath] as? AnyPropertyReference else { return nil }
        return propertiesByOrdinal[reference.referencedOrdinal]?.name
    }
}

protocol AnyPropertyReference {
    var referencedOrdinal: Int32 { get }
}

extension PropertyReference: AnyPropertyReference {
    var referencedOrdinal: Int32 { ordinal }
}
