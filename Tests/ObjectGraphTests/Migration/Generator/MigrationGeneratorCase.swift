import Foundation

/// One generated case: a model version, rows for it, a changed version, and what migrating
/// the rows must give (the reference transformation, in plain Swift).
struct MigrationGeneratorCase {
    let seed: UInt64
    var v1: GenModel
    var v2: GenModel
    var objects: [GenObject]
    /// The changes made from v1 to v2, in words (for the report).
    var changes: [String] = []

    private static let roots = ["Alpha", "Bravo", "Charlie", "Delta"]
    private static let subs = ["Kilo", "Lima", "Mike"]
    private static let attributeNames = ["name", "note", "size", "score", "level", "price", "title", "flag", "stamp", "amount"]
    private static let relationshipNames = ["owner", "partner", "target", "links", "members", "tags"]

    init(seed: UInt64) {
        self.seed = seed
        var random = GeneratorRandom(seed: seed)
        v1 = Self.makeModel(&random)
        objects = []
        v2 = v1
        objects = makeObjects(&random)
        mutate(&random)
    }

    // MARK: Version 1

    private static func makeModel(_ random: inout GeneratorRandom) -> GenModel {
        var model = GenModel(entities: [])
        let rootCount = 2 + random.below(2)
        for name in roots.prefix(rootCount) {
            var entity = GenEntity(name: name)
            entity.attributes.append(GenAttribute(name: "ident", type: .integer64, isOptional: false, defaultValue: .integer(0)))
            model.entities.append(entity)
        }
        // Sibling sub-entities below the first root, often with same-named properties.
        if random.chance(70) {
            let parent = model.entities[0].name
            for name in subs.prefix(2 + random.below(2)) { model.entities.append(GenEntity(name: name, parent: parent)) }
        }
        for index in model.entities.indices {
            for _ in 0..<random.below(4) {
                let taken = model.propertyNames(of: model.entities[index].name)
                guard let name = attributeNames.filter({ !taken.contains($0) }).randomElement(using: &random) else { continue }
                model.entities[index].attributes.append(randomAttribute(name, &random))
            }
        }
        let siblings = model.entities.filter { $0.parent != nil }.map(\.name)
        if siblings.count >= 2, random.chance(80) {
            // The same attribute name on two siblings, maybe of different types.
            let name = attributeNames.filter { name in siblings.allSatisfy { !model.propertyNames(of: $0).contains(name) } }.first ?? "shared"
            for sibling in siblings.prefix(2) {
                let index = model.entities.firstIndex { $0.name == sibling }!
                model.entities[index].attributes.append(randomAttribute(name, &random))
            }
        }
        if siblings.count >= 2, random.chance(60) {
            // Same-named to-ones on two siblings, to one other root.
            let destination = model.entities[1].name
            for sibling in siblings.prefix(2) {
                addPair(&model, from: sibling, name: "owner", to: destination, inverse: "owned\(sibling)", kind: 1)
            }
        }
        for _ in 0..<(1 + random.below(3)) {
            let a = random.pick(model.entities).name
            let candidates = model.entities.filter { model.root(of: $0.name) != model.root(of: a) }
            guard !candidates.isEmpty else { continue }
            let b = random.pick(candidates).name
            let taken = model.propertyNames(of: a).union(model.family(of: a).flatMap { model.propertyNames(of: $0) })
            guard let name = relationshipNames.filter({ !taken.contains($0) }).randomElement(using: &random) else { continue }
            addPair(&model, from: a, name: name, to: b, inverse: "\(name)Of\(a)", kind: random.below(3))
        }
        return model
    }

    private static func randomAttribute(_ name: String, _ random: inout GeneratorRandom) -> GenAttribute {
        let type = random.pick(GenType.allCases)
        let optional = random.chance(70)
        let defaultValue: GenValue? = (!optional || random.chance(40)) ? randomValue(type, &random, small: true) : nil
        return GenAttribute(name: name, type: type, isOptional: optional, defaultValue: defaultValue)
    }

    /// Adds a relationship `name` on `from` and its inverse on `to`: kind 0 one-to-many
    /// (`from` to-many), 1 many-to-one (`from` to-one), 2 many-to-many, else one-to-one.
    private static func addPair(_ model: inout GenModel, from: String, name: String, to: String, inverse: String, kind: Int) {
        let (fromMany, toMany) = [(true, false), (false, true), (true, true), (false, false)][min(kind, 3)]
        let a = model.entities.firstIndex { $0.name == from }!
        let b = model.entities.firstIndex { $0.name == to }!
        model.entities[a].relationships.append(GenRelationship(name: name, destination: to, isToMany: fromMany, inverse: inverse))
        model.entities[b].relationships.append(GenRelationship(name: inverse, destination: from, isToMany: toMany, inverse: name))
    }

    static func randomValue(_ type: GenType, _ random: inout GeneratorRandom, small: Bool = false) -> GenValue {
        switch type {
        case .integer16: return .integer(Int64(random.below(1_001)) - 500)
        case .integer32, .integer64:
            return .integer(!small && random.chance(10) ? 100_000 + Int64(random.below(1_000)) : Int64(random.below(2_001)) - 1_000)
        case .double, .decimal: return .real(Double(random.below(41) - 20) / 2)
        case .string: return .text(small ? random.pick(["apple", "kiwi", "42"]) : random.pick(["apple", "kiwi", "42", " 7 ", "3.5", "", "-12", "pear", "1e3"]))
        case .boolean: return .boolean(random.chance(50))
        case .date: return .date(Double(random.below(1_000_000)))
        }
    }

    // MARK: Rows

    private func makeObjects(_ random: inout GeneratorRandom) -> [GenObject] {
        var objects: [GenObject] = []
        var ident: Int64 = 1
        for entity in v1.entities {
            for _ in 0..<random.below(6) {
                var object = GenObject(entity: entity.name, ident: ident)
                ident += 1
                for attribute in v1.attributes(of: entity.name) where attribute.name != "ident" {
                    if attribute.isOptional && random.chance(30) { continue }
                    object.values[attribute.name] = Self.randomValue(attribute.type, &random)
                }
                object.values["ident"] = .integer(object.ident)
                objects.append(object)
            }
        }
        // Relationship edges, kept consistent on both sides; each pair once.
        var done = Set<String>()
        for entity in v1.entities {
            for relationship in entity.relationships {
                guard let inverse = v1.inverse(of: relationship),
                      done.insert("\(relationship.destination).\(inverse.name)").inserted,
                      done.insert("\(entity.name).\(relationship.name)").inserted else { continue }
                let owners = objects.indices.filter { v1.family(of: entity.name).contains(objects[$0].entity) }
                let members = objects.indices.filter { v1.family(of: relationship.destination).contains(objects[$0].entity) }
                var edges: [(Int, Int)] = []
                switch (relationship.isToMany, inverse.isToMany) {
                case (true, false):
                    for member in members where random.chance(60) { if let owner = owners.randomElement(using: &random) { edges.append((owner, member)) } }
                case (false, true):
                    for owner in owners where random.chance(60) { if let member = members.randomElement(using: &random) { edges.append((owner, member)) } }
                case (true, true):
                    for owner in owners { for member in members where random.chance(30) { edges.append((owner, member)) } }
                case (false, false):
                    var free = members
                    for owner in owners where random.chance(60) && !free.isEmpty {
                        edges.append((owner, free.remove(at: random.below(free.count))))
                    }
                }
                for (owner, member) in edges {
                    if relationship.isToMany { objects[owner].toMany[relationship.name, default: []].insert(objects[member].ident) }
                    else { objects[owner].toOne[relationship.name] = objects[member].ident }
                    if inverse.isToMany { objects[member].toMany[inverse.name, default: []].insert(objects[owner].ident) }
                    else { objects[member].toOne[inverse.name] = objects[owner].ident }
                }
            }
        }
        return objects
    }

    // MARK: Version 2

    private mutating func mutate(_ random: inout GeneratorRandom) {
        for _ in 0..<(1 + random.below(4)) {
            switch random.below(13) {
            case 0, 1: addAttribute(&random)
            case 2: removeAttribute(&random)
            case 3: renameAttribute(&random)
            case 4, 5: retypeAttribute(&random)
            case 6: toggleOptional(&random)
            case 7: addRelationship(&random)
            case 8: removeRelationship(&random)
            case 9: renameRelationship(&random)
            case 10: toggleToMany(&random)
            case 11: renameEntity(&random)
            case 12 where random.chance(50): removeEntity(&random)
            default: moveEntity(&random)
            }
        }
        if changes.isEmpty { addAttribute(&random) }
    }

    private func index(_ name: String) -> Int { v2.entities.firstIndex { $0.name == name }! }

    /// Names taken in `entity`'s hierarchy line (ancestors and descendants).
    private func takenNames(_ entity: String) -> Set<String> {
        v2.family(of: entity).reduce(v2.propertyNames(of: entity)) { $0.union(v2.propertyNames(of: $1)) }
    }

    /// The property names v1 gave the entity a v2 entity comes from, and its family: a new
    /// property of one of those names would be the old one again, not a new one.
    private func namesInV1(of entity: String) -> Set<String> {
        guard let old = v2.entity(entity).flatMap({ $0.renamedFrom ?? (v1.entity($0.name) != nil ? $0.name : nil) }) else { return [] }
        return v1.family(of: old).reduce(v1.propertyNames(of: old)) { $0.union(v1.propertyNames(of: $1)) }
    }

    private mutating func addAttribute(_ random: inout GeneratorRandom) {
        let entity = random.pick(v2.entities).name
        // A name the entity had in v1 would be the same attribute again, not a new one.
        let taken = takenNames(entity).union(namesInV1(of: entity))
        guard let name = (Self.attributeNames + ["extra", "added"]).filter({ !taken.contains($0) }).randomElement(using: &random) else { return }
        var attribute = Self.randomAttribute(name, &random)
        if !attribute.isOptional && attribute.defaultValue == nil { attribute.isOptional = true }
        v2.entities[index(entity)].attributes.append(attribute)
        changes.append("add \(entity).\(name) (\(attribute.type.rawValue)\(attribute.isOptional ? ", optional" : "")\(attribute.defaultValue.map { ", default \($0)" } ?? ""))")
    }

    /// A random attribute other than `ident`, as (entity index, attribute index).
    private func randomAttribute(_ random: inout GeneratorRandom) -> (Int, Int)? {
        let all = v2.entities.indices.flatMap { e in v2.entities[e].attributes.indices.filter { v2.entities[e].attributes[$0].name != "ident" }.map { (e, $0) } }
        return all.isEmpty ? nil : random.pick(all)
    }

    private mutating func removeAttribute(_ random: inout GeneratorRandom) {
        guard let (e, a) = randomAttribute(&random) else { return }
        changes.append("remove \(v2.entities[e].name).\(v2.entities[e].attributes[a].name)")
        v2.entities[e].attributes.remove(at: a)
    }

    private mutating func renameAttribute(_ random: inout GeneratorRandom) {
        guard let (e, a) = randomAttribute(&random), v2.entities[e].attributes[a].renamedFrom == nil else { return }
        let old = v2.entities[e].attributes[a].name
        let new = old + "Renamed"
        guard !takenNames(v2.entities[e].name).contains(new) else { return }
        v2.entities[e].attributes[a].name = new
        v2.entities[e].attributes[a].renamedFrom = old
        changes.append("rename \(v2.entities[e].name).\(old) to \(new) (renaming identifier)")
    }

    private mutating func retypeAttribute(_ random: inout GeneratorRandom) {
        guard let (e, a) = randomAttribute(&random) else { return }
        let from = v2.entities[e].attributes[a].type
        let targets: [GenType]
        switch from {
        case .integer16, .integer32, .integer64: targets = [.integer16, .integer32, .integer64, .double, .decimal, .string, .boolean]
        case .double, .decimal: targets = [.integer64, .double, .decimal, .string, .boolean]
        case .string: targets = [.integer64, .integer16, .double, .boolean]
        case .boolean: targets = [.integer64, .integer16, .string]
        case .date: return
        }
        let to = random.pick(targets.filter { $0 != from })
        v2.entities[e].attributes[a].type = to
        if let value = v2.entities[e].attributes[a].defaultValue {
            v2.entities[e].attributes[a].defaultValue = (try? Self.convert(value, to: to)) ?? Self.randomValue(to, &random, small: true)
        }
        changes.append("retype \(v2.entities[e].name).\(v2.entities[e].attributes[a].name) \(from.rawValue) -> \(to.rawValue)")
    }

    private mutating func toggleOptional(_ random: inout GeneratorRandom) {
        guard let (e, a) = randomAttribute(&random) else { return }
        var attribute = v2.entities[e].attributes[a]
        if attribute.isOptional {
            attribute.isOptional = false
            if attribute.defaultValue == nil || random.chance(30) { attribute.defaultValue = Self.randomValue(attribute.type, &random, small: true) }
        } else {
            attribute.isOptional = true
            if random.chance(50) { attribute.defaultValue = nil }
        }
        v2.entities[e].attributes[a] = attribute
        changes.append("make \(v2.entities[e].name).\(attribute.name) \(attribute.isOptional ? "optional" : "required")\(attribute.defaultValue.map { ", default \($0)" } ?? "")")
    }

    private mutating func addRelationship(_ random: inout GeneratorRandom) {
        let a = random.pick(v2.entities).name
        let candidates = v2.entities.filter { v2.root(of: $0.name) != v2.root(of: a) }
        guard !candidates.isEmpty else { return }
        let b = random.pick(candidates).name
        guard let name = (Self.relationshipNames + ["fresh"]).filter({ !takenNames(a).contains($0) && !namesInV1(of: a).contains($0) }).randomElement(using: &random),
              !takenNames(b).contains("\(name)Of\(a)") else { return }
        let kind = random.below(4)
        Self.addPair(&v2, from: a, name: name, to: b, inverse: "\(name)Of\(a)", kind: kind)
        changes.append("add relationship \(a).\(name) <-> \(b).\(name)Of\(a) (kind \(kind))")
    }

    private func randomRelationship(_ random: inout GeneratorRandom) -> (Int, Int)? {
        let all = v2.entities.indices.flatMap { e in v2.entities[e].relationships.indices.map { (e, $0) } }
        return all.isEmpty ? nil : random.pick(all)
    }

    private mutating func removeRelationship(_ random: inout GeneratorRandom) {
        guard let (e, r) = randomRelationship(&random) else { return }
        let relationship = v2.entities[e].relationships[r]
        let d = index(relationship.destination)
        v2.entities[e].relationships.remove(at: r)
        v2.entities[d].relationships.removeAll { $0.name == relationship.inverse }
        changes.append("remove relationship \(v2.entities[e].name).\(relationship.name) and its inverse")
    }

    private mutating func renameRelationship(_ random: inout GeneratorRandom) {
        guard let (e, r) = randomRelationship(&random), v2.entities[e].relationships[r].renamedFrom == nil else { return }
        let relationship = v2.entities[e].relationships[r]
        let new = relationship.name + "Renamed"
        guard !takenNames(v2.entities[e].name).contains(new) else { return }
        v2.entities[e].relationships[r].name = new
        v2.entities[e].relationships[r].renamedFrom = relationship.name
        let d = index(relationship.destination)
        if let i = v2.entities[d].relationships.firstIndex(where: { $0.name == relationship.inverse }) { v2.entities[d].relationships[i].inverse = new }
        changes.append("rename relationship \(v2.entities[e].name).\(relationship.name) to \(new) (renaming identifier)")
    }

    private mutating func toggleToMany(_ random: inout GeneratorRandom) {
        guard let (e, r) = randomRelationship(&random) else { return }
        v2.entities[e].relationships[r].isToMany.toggle()
        changes.append("make \(v2.entities[e].name).\(v2.entities[e].relationships[r].name) \(v2.entities[e].relationships[r].isToMany ? "to-many" : "to-one")")
    }

    private mutating func renameEntity(_ random: inout GeneratorRandom) {
        let e = random.below(v2.entities.count)
        guard v2.entities[e].renamedFrom == nil else { return }
        let old = v2.entities[e].name
        let new = old + "Renamed"
        for i in v2.entities.indices {
            if v2.entities[i].parent == old { v2.entities[i].parent = new }
            for r in v2.entities[i].relationships.indices where v2.entities[i].relationships[r].destination == old {
                v2.entities[i].relationships[r].destination = new
            }
        }
        v2.entities[e].name = new
        v2.entities[e].renamedFrom = old
        changes.append("rename entity \(old) to \(new) (renaming identifier)")
    }

    /// An entity without sub-entities goes, with the relationships to and from it. At least
    /// one root stays.
    private mutating func removeEntity(_ random: inout GeneratorRandom) {
        let e = random.below(v2.entities.count)
        let name = v2.entities[e].name
        guard v2.family(of: name).count == 1, v2.entities.filter({ $0.parent == nil && $0.name != name }).count >= 1 else { return }
        for i in v2.entities.indices { v2.entities[i].relationships.removeAll { $0.destination == name } }
        v2.entities.remove(at: e)
        changes.append("remove entity \(name) and its relationships")
    }

    /// A sub-entity becomes a root, or a root without sub-entities moves below another root.
    private mutating func moveEntity(_ random: inout GeneratorRandom) {
        let e = random.below(v2.entities.count)
        let name = v2.entities[e].name
        if v2.entities[e].parent != nil {
            guard v2.family(of: name).count == 1 else { return }
            v2.entities[e].parent = nil
            v2.entities[e].attributes.insert(GenAttribute(name: "ident", type: .integer64, isOptional: false, defaultValue: .integer(0)), at: 0)
            changes.append("move \(name) out of its parent: a root now")
            return
        }
        guard v2.family(of: name).count == 1 else { return }
        let others = v2.entities.filter { $0.parent == nil && $0.name != name }.map(\.name)
        guard !others.isEmpty else { return }
        let parent = random.pick(others)
        let own = Set(v2.entities[e].attributes.map(\.name).filter { $0 != "ident" } + v2.entities[e].relationships.map(\.name))
        // Relationships between the two would make one hierarchy point at itself: leave those.
        guard own.isDisjoint(with: takenNames(parent)),
              !v2.entities[e].relationships.contains(where: { v2.root(of: $0.destination) == parent }) else { return }
        v2.entities[e].attributes.removeAll { $0.name == "ident" }
        v2.entities[e].parent = parent
        changes.append("move \(name) below \(parent)")
    }

    // MARK: Conversions

    struct ConversionFailure: Error {}

    /// `value` converted to `type` as Core Data's lightweight migration converts it
    /// (docs/migration.md's table); nil for blank text; throws when it does not convert.
    static func convert(_ value: GenValue, to type: GenType) throws -> GenValue? {
        switch (value, type) {
        case (.date, .date): return value
        case (.date, _), (_, .date): throw ConversionFailure()
        case (.integer(let v), _) where type.isInteger:
            let range: ClosedRange<Int64> = type == .integer16 ? -32_768...32_767 : type == .integer32 ? -2_147_483_648...2_147_483_647 : Int64.min...Int64.max
            guard range.contains(v) else { throw ConversionFailure() }
            return value
        case (.boolean(let b), _) where type.isInteger: return .integer(b ? 1 : 0)
        case (.real(let d), _) where type.isInteger:
            guard let v = Int64(exactly: d.rounded(.towardZero)) else { throw ConversionFailure() }
            return try convert(.integer(v), to: type)
        case (.text(let s), _) where type.isInteger || type.isReal || type == .boolean:
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return nil }
            if type == .boolean {
                switch trimmed.lowercased() {
                case "yes", "true": return .boolean(true)
                case "no", "false": return .boolean(false)
                default:
                    guard let d = Double(trimmed), !d.isNaN else { throw ConversionFailure() }
                    return .boolean(d != 0)
                }
            }
            if let v = Int64(trimmed) { return type.isReal ? .real(Double(v)) : try convert(.integer(v), to: type) }
            guard let d = Double(trimmed), d.isFinite else { throw ConversionFailure() }
            return type.isReal ? .real(d) : try convert(.real(d), to: type)
        case (.integer(let v), _) where type.isReal: return .real(Double(v))
        case (.boolean(let b), _) where type.isReal: return .real(b ? 1 : 0)
        case (.real, _) where type.isReal: return value
        case (.integer(let v), .boolean): return .boolean(v != 0)
        case (.boolean, .boolean): return value
        case (.real(let d), .boolean): return .boolean(d != 0)
        case (.integer(let v), .string): return .text(String(v))
        case (.boolean(let b), .string): return .text(b ? "1" : "0")
        case (.real(let d), .string): return .text(d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d))
        case (.text, .string): return value
        default: throw ConversionFailure()
        }
    }
}
