import Foundation
import Logging

/// The results of a fetch request that keep themselves up to date: after every save of the
/// context, every merge of another context's commit into it, and every processing of its
/// pending changes, ``objects`` and ``sections`` are brought up to date and observers hear
/// what changed in index form (``FetchedResultsDiff``), or `.reload` when one commit changed
/// more than ``reloadThreshold`` objects — Core Data's `NSFetchedResultsController`.
///
/// **Thread safety.** Fetched results belong to their context's owner, like the objects
/// they hold: create and read them where you use the context (the view context on the main
/// queue, typically). Their ``changes`` stream may be iterated from any task; the callbacks of
/// ``onChange(_:)`` run where the context runs. On a main-queue context, another thread's
/// commit is merged as soon as the main queue runs — no access to the context needed; on
/// other contexts, at the owner's next access or ``ManagedObjectContext/processPendingChanges()``.
///
/// Changes are evaluated in memory when they can be: when the predicate, the sort keys and
/// the section key path read only the entity's own attributes and to-one keys, and the
/// request has no limit or offset, only the changed objects are judged and sorted in. Other
/// requests are fetched again after each relevant change.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Employee>(sortDescriptors: [SortKey("department.name"), SortKey("lastName")])
/// request.predicate = try FetchPredicate("age > %@", 40)
/// let results = try FetchedResults(request, context: container.viewContext, sectionKeyPath: "department.name")
/// print(results.objects.count, results.sections.map(\.name))
/// results.onChange { change in
///     if case .changes(let diff) = change { print(diff) }
/// }
/// ```
///
/// Sort by the section key path first (as with Core Data), so each section is one run of
/// objects; and give sort keys that order the objects fully, so that objects which tie on
/// every key keep a definite order.
public final class FetchedResults<Result: ManagedObject> {
    /// The request the results answer.
    public let request: FetchRequest<Result>
    /// The key path whose value groups the objects into sections, or nil for one section.
    public let sectionKeyPath: String?
    /// The context the objects belong to.
    public let context: ManagedObjectContext
    /// Above this many changed objects of the entity in one commit, observers hear one
    /// `.reload` instead of index changes.
    public var reloadThreshold: Int

    /// The matching objects, in the request's order (sections one after the other).
    public private(set) var objects: [Result] = []
    /// The objects grouped by ``sectionKeyPath`` (one section named "" without one).
    public private(set) var sections: [FetchedSection<Result>] = []

    private let plan: FetchPlan
    private let sectionPath: BoundPath?
    /// Whether a change can be applied in memory (see the type's documentation).
    private let evaluatesInMemory: Bool
    private var handlers: [(FetchedResultsChange) -> Void] = []
    private let streams = ObserverContinuations<FetchedResultsChange>()
    private var token: ManagedObjectContext.ObserverToken?
    private var updating = false
    private var changedWhileUpdating: ContextChanges?

    /// Fetches `request` in `context` and keeps the results up to date from then on.
    ///
    /// - Parameters:
    ///   - sectionKeyPath: a key path through to-one relationships (`department.name`) whose
    ///     value names each object's section; nil for one section.
    ///   - reloadThreshold: above this many changed objects in one commit, one `.reload`.
    /// - Throws: ``FetchPredicateError`` or ``KeyValueError`` for an unknown key in the
    ///   predicate, sort keys or section key path; a store error when the first fetch fails.
    public init(_ request: FetchRequest<Result>, context: ManagedObjectContext, sectionKeyPath: String? = nil,
                reloadThreshold: Int = 500) throws {
        self.request = request
        self.context = context
        self.sectionKeyPath = sectionKeyPath
        self.reloadThreshold = reloadThreshold
        let plan = try FetchPlan(request, context)
        self.plan = plan
        sectionPath = try sectionKeyPath.map { try PredicateBinder.scalarPath($0, on: plan.entity).0 }
        evaluatesInMemory = request.fetchLimit == 0 && request.fetchOffset == 0
            && (plan.predicate?.readsOnlyOwnSlots ?? true)
            && plan.order.keys.allSatisfy { $0.path.hops.isEmpty }
            && (sectionPath?.hops.isEmpty ?? true)
        regroup(try context.fetch(request))
        token = context.addObserver(for: .objectsDidChange, whileAlive: { [weak self] in self != nil }) { [weak self] changes in
            self?.contextDidChange(changes)
        }
    }

    deinit {
        streams.finish()
    }

    private var isCancelled = false

    // MARK: Observing

    /// Every change, as an `AsyncSequence`. Each call makes a new stream; it ends when the
    /// results are released or cancelled, and stops being fed when its consuming task is
    /// cancelled.
    ///
    /// ```swift
    /// for await change in results.changes { ... }
    /// ```
    public var changes: AsyncStream<FetchedResultsChange> { streams.makeStream() }

    /// Calls `block` with every change, on the context's thread, after ``objects`` and
    /// ``sections`` show the new state. The results keep `block` until they are cancelled or
    /// released: capture them `[unowned results]` (or weakly) inside it, not strongly.
    public func onChange(_ block: @escaping (FetchedResultsChange) -> Void) {
        handlers.append(block)
    }

    /// Stops keeping the results up to date: the callbacks are dropped, the streams end, and
    /// the context forgets the observation. The results keep their last contents.
    public func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        if let token { context.removeObserver(token) }
        token = nil
        handlers.removeAll()
        streams.finish()
    }

    // MARK: Updating

    private func contextDidChange(_ changes: ContextChanges) {
        // A refetch inside this call can announce more changes: handle them after it.
        guard !updating else {
            changedWhileUpdating = changedWhileUpdating.map { $0.merged(with: changes) } ?? changes
            return
        }
        updating = true
        defer { updating = false }
        var next: ContextChanges? = changes
        while let current = next {
            changedWhileUpdating = nil
            update(for: current)
            next = changedWhileUpdating
        }
    }

    private func update(for changes: ContextChanges) {
        let root = plan.entity.root
        let relevant = changes.inserted.union(changes.updated).union(changes.deleted).filter { $0.entity.root === root }
        if evaluatesInMemory && relevant.isEmpty && !changes.invalidatedAll { return }
        let old = diffSections()
        let oldIdentities = Set(objects.lazy.map(ObjectIdentifier.init))
        if changes.invalidatedAll {
            // Nothing was listed: the store says what matches now.
            guard refetch() else { return }
            let diff = FetchedResultsDiff(from: old, to: diffSections(), updated: oldIdentities)
            if !diff.isEmpty { notify(.changes(diff)) }
            return
        }
        if relevant.count > reloadThreshold {
            guard refetch() else { return }
            notify(.reload)
            return
        }
        if evaluatesInMemory {
            applyInMemory(relevant, changes)
        } else {
            guard refetch() else { return }
        }
        let updated = Set(changes.updated.lazy.compactMap { self.context.registeredObject(for: $0) }.map(ObjectIdentifier.init))
            .intersection(oldIdentities)
        let diff = FetchedResultsDiff(from: old, to: diffSections(), updated: updated)
        if !diff.isEmpty { notify(.changes(diff)) }
    }

    /// Judges only the changed objects: deleted ones out, changed and inserted ones in where
    /// they match, each put in its place by a binary search (the others keep their order).
    private func applyInMemory(_ relevant: Set<ObjectID>, _ changes: ContextChanges) {
        let includesSubentities = request.includesSubentities
        var kept: [Result] = []
        kept.reserveCapacity(objects.count)
        var moving: [Result] = []
        var present = Set<ObjectIdentifier>()
        for object in objects where object.managedObjectContext === context && !object.isDeleted {
            present.insert(ObjectIdentifier(object))
            if !relevant.contains(object.objectID) {
                kept.append(object)
            } else if plan.matches(object, includesSubentities: includesSubentities) {
                moving.append(object)
            }
        }
        // Changed and inserted objects not in the results yet: registered ones as they are,
        // the others (inserted elsewhere) loaded with one query per 500, not one each.
        let candidates = relevant.filter { !changes.deleted.contains($0) && (!$0.isTemporaryID || context.registeredObject(for: $0) != nil) }
        for object in context.objects(for: Array(candidates)) {
            guard !present.contains(ObjectIdentifier(object)), object.managedObjectContext === context, !object.isDeleted,
                  let result = object as? Result, plan.matches(object, includesSubentities: includesSubentities) else { continue }
            moving.append(result)
            present.insert(ObjectIdentifier(object))
        }
        guard !plan.order.keys.isEmpty else {
            regroup(kept + moving)
            return
        }
        moving.sort(by: plan.order.areInIncreasingOrder)
        for object in moving {
            // After every object it does not sort before (ties keep arrival order).
            var low = 0, high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if plan.order.areInIncreasingOrder(object, kept[middle]) { high = middle } else { low = middle + 1 }
            }
            kept.insert(object, at: low)
        }
        regroup(kept)
    }

    /// Fetches again; on failure keeps the old contents and tells the observers.
    private func refetch() -> Bool {
        do {
            regroup(try context.fetch(request))
            return true
        } catch {
            context.logger.error("fetched results of \(plan.entity.name) could not refetch: \(error)")
            notify(.failed(FetchedResultsError(message: "fetched results of \(plan.entity.name) could not refetch, and keep their previous contents: \(error)")))
            return false
        }
    }

    private func regroup(_ ordered: [Result]) {
        objects = ordered
        guard let sectionPath else {
            sections = [FetchedSection(name: "", objects: ordered)]
            return
        }
        var grouped: [FetchedSection<Result>] = []
        var index: [String: Int] = [:]
        var members: [[Result]] = []
        for object in ordered {
            let name = PredicateEvaluator.value(sectionPath, [object]).sectionName
            if let at = index[name] {
                members[at].append(object)
            } else {
                index[name] = members.count
                members.append([object])
                grouped.append(FetchedSection(name: name, objects: []))
            }
        }
        sections = zip(grouped, members).map { FetchedSection(name: $0.name, objects: $1) }
        // Sections that are not one run each (the first sort key is not the section key
        // path) are grouped anyway; `objects` follows the sections.
        objects = sections.flatMap(\.objects)
    }

    private func diffSections() -> [FetchedResultsDiff.Section] {
        sections.map { .init(name: $0.name, items: $0.objects.map(ObjectIdentifier.init)) }
    }

    private func notify(_ change: FetchedResultsChange) {
        for handler in handlers { handler(change) }
        streams.yield(change)
    }
}

extension SlotValue {
    /// A value as a section name.
    var sectionName: String {
        switch self {
        case .null, .unloaded, .objects: return ""
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .text(let value): return value
        case .blob(let value): return value.base64EncodedString()
        case .uuid(let value): return value.uuidString
        case .decimal(let value): return "\(value)"
        case .url(let value): return value.absoluteString
        case .object(let id): return id.uriRepresentation.absoluteString
        }
    }
}

extension ContextChanges {
    /// These changes followed by `later`.
    func merged(with later: ContextChanges) -> ContextChanges {
        var result = self
        result.inserted.formUnion(later.inserted)
        result.updated.formUnion(later.updated)
        result.deleted.formUnion(later.deleted)
        result.changedKeys.merge(later.changedKeys) { $0.union($1) }
        result.invalidatedAll = invalidatedAll || later.invalidatedAll
        return result
    }
}

extension BoundNode {
    /// Whether judging an object reads only its own slots (no relationship hops, no to-many,
    /// no subquery): then only a change to the object itself can change whether it matches.
    var readsOnlyOwnSlots: Bool {
        switch self {
        case .constant: return true
        case .not(let node): return node.readsOnlyOwnSlots
        case .and(let nodes), .or(let nodes): return nodes.allSatisfy(\.readsOnlyOwnSlots)
        case .compare(let left, _, let right, _): return left.readsOnlyOwnSlots && right.readsOnlyOwnSlots
        case .quantified: return false
        }
    }
}

extension BoundOperand {
    var readsOnlyOwnSlots: Bool {
        switch self {
        case .constant, .list: return true
        case .path(let path): return path.hops.isEmpty && path.root == 0
        case .collection, .subqueryCount: return false
        case .function(_, let operands): return operands.allSatisfy(\.readsOnlyOwnSlots)
        case .ternary(let node, let a, let b): return node.readsOnlyOwnSlots && a.readsOnlyOwnSlots && b.readsOnlyOwnSlots
        }
    }
}
