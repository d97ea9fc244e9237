import Foundation

// NUL (U+0000) in text, which PostgreSQL's `text` cannot hold (SQLSTATE 22021): refused with
// one typed error wherever a value would reach the server (docs/stores.md#what-differs), and
// answered as SQLite answers where a predicate's argument holds it.
//
// - A save: every text the save would write (inserted objects' columns, updated objects'
//   changed columns) is checked before anything is sent, the uniqueness check included.
// - A batch update's values: the same check (PostgresStore.batchUpdate).
// - A predicate: no stored text holds NUL, so a comparison with a NUL-holding argument has
//   the answer SQLite gives on the same rows without running it: `==`, BEGINSWITH, ENDSWITH,
//   CONTAINS and LIKE are false, `!=` is true, IN drops the argument from its list, and
//   `<`, `<=` become `<=` the part before the first NUL (`>`, `>=` become `>` it). What
//   the server cannot answer so (MATCHES, a NUL argument inside a function) is refused,
//   naming the argument.
// - Any other text bound to a statement: the driver refuses it, naming the parameter.

extension DatabaseServerError {
    /// What PostgreSQL answers for text holding NUL (SQLSTATE 22021), the `underlying` of
    /// every NUL refusal, which is made before the text is sent.
    package static func nulInText(statement: String? = nil) -> DatabaseServerError {
        DatabaseServerError(sqlState: "22021", message: "invalid byte sequence for encoding \"UTF8\": 0x00", statement: statement)
    }
}

extension PostgresStore {
    /// The error for text holding NUL in `property` (of the object `id`, when it has one):
    /// refused before anything is written.
    static func nulRefused(_ property: String, of id: ObjectID?, url: URL?) -> StoreError {
        let owner = id.map { " of \($0)" } ?? ""
        return StoreError(.serverError, url: url, "the text of \(property)\(owner) holds the NUL character (U+0000), which PostgreSQL cannot store in text; nothing was saved. Remove the NUL characters, or keep such values in a Data (binary) attribute",
                          underlying: DatabaseServerError.nulInText())
    }

    /// Refuses `save` when a text it would write holds NUL, naming the first such property.
    func refuseNUL(in save: SaveRequest) throws {
        func check(_ object: ManagedObject, slot: Int) throws {
            if case .text(let text) = object.values[slot], text.utf8.contains(0) {
                throw Self.nulRefused(object.entity.properties[slot].name, of: object.objectID, url: url)
            }
        }
        for object in save.inserted {
            for column in layout.mappings[object.entity.index].savePlan.insertColumns { try check(object, slot: column.slot) }
        }
        for change in save.updated {
            try layout.mappings[change.object.entity.index].savePlan.storedSlots(of: change.changes).forEach { try check(change.object, slot: $0) }
        }
    }

    /// `query` with every comparison against a NUL-holding argument answered as SQLite
    /// answers it (see the top of this file); throws for one the server cannot answer so.
    func answeringNULArguments(_ query: StoreQuery) throws -> StoreQuery {
        guard let predicate = query.predicate, Self.holdsNUL(predicate) else { return query }
        return StoreQuery(entity: query.entity, includesSubentities: query.includesSubentities,
                          predicate: try answeringNULArguments(predicate), sortKeys: query.sortKeys,
                          limit: query.limit, offset: query.offset)
    }

    private func answeringNULArguments(_ node: BoundNode) throws -> BoundNode {
        switch node {
        case .constant: return node
        case .not(let inner): return .not(try answeringNULArguments(inner))
        case .and(let nodes): return .and(try nodes.map { try answeringNULArguments($0) })
        case .or(let nodes): return .or(try nodes.map { try answeringNULArguments($0) })
        case .quantified(let quantifier, let toMany, let element, let inner):
            return .quantified(quantifier, toMany, element: element, try answeringNULArguments(inner))
        case .compare(let lhs, let op, let rhs, let options):
            guard Self.holdsNUL(lhs) || Self.holdsNUL(rhs) else { return node }
            if Self.isStored(lhs) {
                if case .constant(.text(let text)) = rhs, let answer = Self.answer(lhs, op, text, options) { return answer }
                if case .list(let values) = rhs, op == .in {
                    let kept = values.filter { !Self.isNULText($0) }
                    return kept.isEmpty ? .constant(false) : .compare(lhs, op, .list(kept), options)
                }
                if case .list(let values) = rhs, op == .between, values.count == 2 {
                    return try answeringNULArguments(.and([.compare(lhs, .greaterOrEqual, .constant(values[0]), options),
                                                           .compare(lhs, .lessOrEqual, .constant(values[1]), options)]))
                }
            }
            throw nulArgumentRefused(op, lhs, rhs)
        }
    }

    /// `lhs op text` for a `lhs` that holds no NUL (a stored value, or a function of stored
    /// values), where `text` holds NUL; nil when the server cannot answer it as SQLite does.
    private static func answer(_ lhs: BoundOperand, _ op: PredicateOperator, _ text: String, _ options: StringOptions) -> BoundNode? {
        let beforeNUL = SlotValue.text(String(decoding: text.utf8.prefix { $0 != 0 }, as: UTF8.self))
        switch op {
        case .equal, .beginsWith, .endsWith, .contains, .like: return .constant(false)
        case .notEqual: return .constant(true)
        // No stored text holds NUL, so it is below `text` exactly when it is at most the part
        // before the first NUL (a prefix of `text` is below it, anything above that prefix is above).
        case .less, .lessOrEqual: return .compare(lhs, .lessOrEqual, .constant(beforeNUL), options)
        case .greater, .greaterOrEqual: return .compare(lhs, .greater, .constant(beforeNUL), options)
        case .matches, .in, .between: return nil
        }
    }

    private func nulArgumentRefused(_ op: PredicateOperator, _ operands: BoundOperand...) -> StoreError {
        let argument = operands.lazy.compactMap(Self.firstNULText).first ?? "\u{0}"
        return StoreError(.serverError, url: url, "the predicate's argument \(String(reflecting: argument)) holds the NUL character (U+0000), which no PostgreSQL text holds, and the server cannot answer \(op.rawValue) with it as SQLite does; nothing was read or changed. Remove the NUL characters from the argument",
                          underlying: DatabaseServerError.nulInText())
    }

    // MARK: Finding NUL

    private static func isNULText(_ value: SlotValue) -> Bool {
        if case .text(let text) = value { return text.utf8.contains(0) }
        return false
    }

    /// Whether `operand` is a stored value or a function of stored values without constants
    /// holding NUL: its value never holds NUL.
    private static func isStored(_ operand: BoundOperand) -> Bool {
        switch operand {
        case .constant, .list: return false
        default: return !holdsNUL(operand)
        }
    }

    /// Whether a text constant anywhere in `node` holds NUL.
    static func holdsNUL(_ node: BoundNode) -> Bool {
        switch node {
        case .constant: return false
        case .not(let inner): return holdsNUL(inner)
        case .and(let nodes), .or(let nodes): return nodes.contains(where: holdsNUL)
        case .compare(let lhs, _, let rhs, _): return holdsNUL(lhs) || holdsNUL(rhs)
        case .quantified(_, _, _, let inner): return holdsNUL(inner)
        }
    }

    private static func holdsNUL(_ operand: BoundOperand) -> Bool { firstNULText(operand) != nil }

    /// The first NUL-holding text constant of `operand`.
    private static func firstNULText(_ operand: BoundOperand) -> String? {
        switch operand {
        case .constant(let value): if case .text(let text) = value, isNULText(value) { return text }
        case .list(let values):
            for case .text(let text) in values where text.utf8.contains(0) { return text }
        case .path, .collection: break
        case .subqueryCount(_, _, let node): return holdsNUL(node) ? "\u{0}" : nil
        case .function(_, let operands): return operands.lazy.compactMap(firstNULText).first
        case .ternary(let node, let then, let otherwise):
            return firstNULText(then) ?? firstNULText(otherwise) ?? (holdsNUL(node) ? "\u{0}" : nil)
        }
        return nil
    }
}
