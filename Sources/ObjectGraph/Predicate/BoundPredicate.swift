import Foundation

// A predicate bound to an entity: every key path resolved to properties of the model, every
// constant converted to the stored form of what it is compared with. Both back ends (the SQL
// compiler and the in-memory evaluator) read this tree, so they see the same model and the
// binder reports the same errors for both.

/// Scope 0 is the object being judged; each ANY/ALL/NONE and SUBQUERY opens a scope for
/// the element it ranges over.
typealias ScopeIndex = Int

/// Where a scalar key path ends.
enum BoundTerminal {
    case attribute(AttributeDescription)
    /// A to-one relationship: its value is the destination's object ID.
    case toOne(RelationshipDescription)
    /// `SELF` (or a variable): the object itself.
    case identity
}

/// A key path through to-one relationships (`department.name`) from a scope.
struct BoundPath {
    var root: ScopeIndex
    var rootEntity: EntityDescription
    /// To-one relationships followed in order.
    var hops: [RelationshipDescription]
    var terminal: BoundTerminal

    /// The entity at the end of the hops.
    var lastEntity: EntityDescription { hops.last?.destinationEntity ?? rootEntity }
}

/// A to-many relationship reached from a scope through to-one hops (`department.employees`).
struct BoundToMany {
    var root: ScopeIndex
    var rootEntity: EntityDescription
    var hops: [RelationshipDescription]
    var relationship: RelationshipDescription

    var ownerEntity: EntityDescription { hops.last?.destinationEntity ?? rootEntity }

    /// The path to the owner of the relationship (its object ID).
    var ownerPath: BoundPath {
        guard let last = hops.last else { return BoundPath(root: root, rootEntity: rootEntity, hops: [], terminal: .identity) }
        return BoundPath(root: root, rootEntity: rootEntity, hops: Array(hops.dropLast()), terminal: .toOne(last))
    }
}

/// `@count`, `@sum`, `@avg`, `@min`, `@max`.
enum CollectionFunction: String {
    case count, sum, avg, min, max
}

/// What a bound value is, for type checks.
enum ValueKind: Equatable, CustomStringConvertible {
    case number, text, date, uuid, data, object(EntityDescription), null

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: self = .number
        case .string, .uri: self = .text
        case .date: self = .date
        case .uuid: self = .uuid
        case .binary, .transformable: self = .data
        }
    }

    var description: String {
        switch self {
        case .number: return "number"
        case .text: return "String"
        case .date: return "Date"
        case .uuid: return "UUID"
        case .data: return "Data"
        case .object(let entity): return entity.name
        case .null: return "nil"
        }
    }

    static func == (lhs: ValueKind, rhs: ValueKind) -> Bool {
        switch (lhs, rhs) {
        case (.number, .number), (.text, .text), (.date, .date), (.uuid, .uuid), (.data, .data), (.null, .null): return true
        case (.object(let a), .object(let b)): return a.root === b.root
        default: return false
        }
    }
}

/// One side of a bound comparison.
indirect enum BoundOperand {
    case constant(SlotValue)
    case list([SlotValue])
    case path(BoundPath)
    /// `reports.@count`, `reports.@avg.age`: the element scope and the path from it.
    case collection(CollectionFunction, BoundToMany, element: ScopeIndex, tail: BoundPath?)
    /// `SUBQUERY(reports, $r, predicate).@count`.
    case subqueryCount(BoundToMany, element: ScopeIndex, BoundNode)
    /// `age + 1`, `lowercase:(name)`: a function of single values.
    case function(PredicateFunction, [BoundOperand])
    /// `TERNARY(predicate, then, else)`.
    case ternary(BoundNode, BoundOperand, BoundOperand)
}

/// A bound predicate.
indirect enum BoundNode {
    case constant(Bool)
    case not(BoundNode)
    case and([BoundNode])
    case or([BoundNode])
    case compare(BoundOperand, PredicateOperator, BoundOperand, StringOptions)
    /// `ANY`/`ALL`/`NONE` over the elements of a to-many, each bound to `element`.
    case quantified(PredicateQuantifier, BoundToMany, element: ScopeIndex, BoundNode)
}
