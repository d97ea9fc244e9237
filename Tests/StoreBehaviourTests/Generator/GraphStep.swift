import Foundation

/// One step of a generated sequence. Objects are picked by index into the acting context's
/// objects of an entity in key order (modulo their number), so a step still means something
/// when the shrinker drops the steps before it.
enum GraphStep: CustomStringConvertible, Sendable {
    case insert(actor: Int, GraphEntity)
    /// A fresh value for Department.budget or Employee.age.
    case setNumber(actor: Int, GraphEntity, pick: Int)
    /// A fresh nickname, or nil.
    case setText(actor: Int, pick: Int, clear: Bool)
    /// `employee.department = department` (nil when `department` is negative).
    case setDepartment(actor: Int, employee: Int, department: Int)
    /// `tag.project = project` (nil when `project` is negative).
    case setProject(actor: Int, tag: Int, project: Int)
    /// Adds or removes a member, through `project.members` or `employee.projects`.
    case setMember(actor: Int, project: Int, employee: Int, member: Bool, fromProject: Bool)
    /// `project.tags` rotated by `by`.
    case reorderTags(actor: Int, project: Int, by: Int)
    case delete(actor: Int, GraphEntity, pick: Int)
    case save(actor: Int)
    case rollback(actor: Int)
    case undo(actor: Int)
    case refresh(actor: Int, GraphEntity, pick: Int, merge: Bool)
    case reset(actor: Int)
    /// The second container's context merges the saves of the first it has not seen.
    case mergeSecondContainer
    /// Every container is closed and opened again on the same store (unsaved changes go).
    case reopen
    /// A child context of `actor`'s context is opened, `steps` (edits, or a child of its
    /// own) run in it, and then it is saved into its parent (`saves`) or dropped.
    indirect case child(actor: Int, steps: [GraphStep], saves: Bool)

    /// The context the step acts in (nil: several or none).
    var actor: Int? {
        switch self {
        case .insert(let actor, _), .setNumber(let actor, _, _), .setText(let actor, _, _), .setDepartment(let actor, _, _),
             .setProject(let actor, _, _), .setMember(let actor, _, _, _, _), .reorderTags(let actor, _, _), .delete(let actor, _, _),
             .save(let actor), .rollback(let actor), .undo(let actor), .refresh(let actor, _, _, _), .reset(let actor),
             .child(let actor, _, _):
            actor
        case .mergeSecondContainer, .reopen:
            nil
        }
    }

    /// Whether the step only edits objects in memory (an undo group of its own).
    var isEdit: Bool {
        switch self {
        case .insert, .setNumber, .setText, .setDepartment, .setProject, .setMember, .reorderTags, .delete: true
        default: false
        }
    }

    static let contextNames = ["A", "B", "C"]

    /// The step's kind, for counting.
    var kind: String {
        switch self {
        case .insert: "insert"
        case .setNumber, .setText: "attribute"
        case .setDepartment: "to-one"
        case .setProject: "to-one (ordered inverse)"
        case .setMember(_, _, _, let member, _): member ? "many-to-many insert" : "many-to-many remove"
        case .reorderTags: "ordered reorder"
        case .delete: "delete"
        case .save: "save"
        case .rollback: "rollback"
        case .undo: "undo"
        case .refresh(_, _, _, let merge): merge ? "refresh merging" : "refresh"
        case .reset: "reset"
        case .mergeSecondContainer: "merge"
        case .reopen: "reopen"
        case .child(_, _, let saves): saves ? "child saved into its parent" : "child dropped"
        }
    }

    var description: String {
        func name(_ actor: Int) -> String { Self.contextNames[actor] }
        switch self {
        case .insert(let a, let entity): return "\(name(a)): insert \(entity)"
        case .setNumber(let a, let entity, let pick): return "\(name(a)): \(entity)#\(pick).\(entity == .department ? "budget" : "age") = new"
        case .setText(let a, let pick, let clear): return "\(name(a)): Employee#\(pick).nickname = \(clear ? "nil" : "new")"
        case .setDepartment(let a, let e, let d): return "\(name(a)): Employee#\(e).department = \(d < 0 ? "nil" : "Department#\(d)")"
        case .setProject(let a, let t, let p): return "\(name(a)): Tag#\(t).project = \(p < 0 ? "nil" : "Project#\(p)")"
        case .setMember(let a, let p, let e, let member, let fromProject):
            let verb = member ? "insert" : "remove"
            return fromProject ? "\(name(a)): Project#\(p).members.\(verb)(Employee#\(e))" : "\(name(a)): Employee#\(e).projects.\(verb)(Project#\(p))"
        case .reorderTags(let a, let p, let by): return "\(name(a)): Project#\(p).tags rotated by \(by)"
        case .delete(let a, let entity, let pick): return "\(name(a)): delete \(entity)#\(pick)"
        case .save(let a): return "\(name(a)): save"
        case .rollback(let a): return "\(name(a)): rollback"
        case .undo(let a): return "\(name(a)): undo"
        case .refresh(let a, let entity, let pick, let merge): return "\(name(a)): refresh \(entity)#\(pick) mergeChanges: \(merge)"
        case .reset(let a): return "\(name(a)): reset"
        case .mergeSecondContainer: return "C: mergeChanges(fromSaveOf:) of A's and B's saves"
        case .reopen: return "reopen every container"
        case .child(let a, let steps, let saves):
            let inner = steps.map { "\($0)".replacingOccurrences(of: "\(name(a)): ", with: "") }.joined(separator: "; ")
            return "\(name(a)): in a child { \(inner) }, then \(saves ? "save it into \(name(a))" : "drop it")"
        }
    }
}

/// A seeded SplitMix64 generator: the same seed gives the same sequence on every platform.
struct GraphRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension GraphStep {
    /// A random sequence: each context acts for a few steps in a row (as an application's
    /// contexts do), then another takes over.
    static func sequence(seed: UInt64, steps: Int) -> [GraphStep] {
        var random = GraphRandom(seed: seed)
        var actor = 0
        return (0..<steps).map { _ in
            if Int.random(in: 0..<4, using: &random) == 0 {
                let roll = Int.random(in: 0..<100, using: &random)
                actor = roll < 45 ? 0 : roll < 70 ? 1 : 2
            }
            return GraphStep.random(actor: actor, using: &random)
        }
    }

    /// A random step of `actor`, with the weights of an application's mix: mostly edits and
    /// saves, some rollbacks, undos, refreshes and merges, rarely a reset or a reopen.
    static func random(actor: Int, using random: inout GraphRandom) -> GraphStep {
        let roll = Int.random(in: 0..<100, using: &random)
        func pick() -> Int { Int.random(in: 0..<64, using: &random) }
        func entity() -> GraphEntity { GraphEntity(rawValue: Int.random(in: 0..<4, using: &random))! }
        switch roll {
        case 0..<12: return .insert(actor: actor, entity())
        case 12..<21: return .setNumber(actor: actor, Bool.random(using: &random) ? .employee : .department, pick: pick())
        case 21..<25: return .setText(actor: actor, pick: pick(), clear: Int.random(in: 0..<4, using: &random) == 0)
        case 25..<34: return .setDepartment(actor: actor, employee: pick(), department: Int.random(in: 0..<5, using: &random) == 0 ? -1 : pick())
        case 34..<41: return .setProject(actor: actor, tag: pick(), project: Int.random(in: 0..<5, using: &random) == 0 ? -1 : pick())
        case 41..<53:
            return .setMember(actor: actor, project: pick(), employee: pick(), member: Int.random(in: 0..<3, using: &random) > 0,
                              fromProject: Bool.random(using: &random))
        case 53..<57: return .reorderTags(actor: actor, project: pick(), by: Int.random(in: 1..<4, using: &random))
        case 57..<63: return .delete(actor: actor, entity(), pick: pick())
        case 63..<78: return .save(actor: actor)
        case 78..<81: return .rollback(actor: actor)
        case 81..<85: return .undo(actor: actor)
        case 85..<89: return .refresh(actor: actor, entity(), pick: pick(), merge: Int.random(in: 0..<3, using: &random) > 0)
        case 89..<92: return childEpisode(actor: actor, depth: 1, using: &random)
        case 92..<94: return .reset(actor: actor)
        case 94..<98: return .mergeSecondContainer
        default: return .reopen
        }
    }

    /// A child context's episode: one to five edits, sometimes a grandchild's episode among
    /// them (two levels at most); saved into the parent two times in three.
    static func childEpisode(actor: Int, depth: Int, using random: inout GraphRandom) -> GraphStep {
        let steps = (0..<Int.random(in: 1...5, using: &random)).map { _ -> GraphStep in
            if depth < 2 && Int.random(in: 0..<6, using: &random) == 0 { return childEpisode(actor: actor, depth: depth + 1, using: &random) }
            while true {
                let step = GraphStep.random(actor: actor, using: &random)
                if step.isEdit { return step }
            }
        }
        return .child(actor: actor, steps: steps, saves: Int.random(in: 0..<3, using: &random) > 0)
    }
}
