import Foundation
import ObjectGraph
import Testing

/// A model-based test of the object graph: random sequences of inserts, attribute edits,
/// deletes, to-one / to-many / ordered / many-to-many changes, saves, rollbacks, undo,
/// refreshes with and without merging, resets, merges between three contexts of two
/// containers, and reopening, run against the real store and a plain-Swift reference model
/// (GraphReference.swift) side by side. After every step each context's objects and values
/// are compared with the reference; after every save and reopen, the store as a fresh
/// container reads it. A failing sequence is shrunk (steps dropped while it still fails) and
/// printed with its seed.
///
/// Budget: `GRAPH_GENERATOR_SEQUENCES` sequences (default 20) of `GRAPH_GENERATOR_STEPS`
/// steps (default 30) per store, from seed `GRAPH_GENERATOR_SEED` (default 2_311; sequence i
/// uses seed + i), on the stores `GRAPH_GENERATOR_STORES` names (default both).
/// docs/reliability.md records the long runs.
///
/// Where the reference follows the library rather than Core Data (each documented):
/// - a context that merges changes at its next access keeps the changed attributes and
///   to-ones of objects with unsaved changes at their old snapshot (their save meets the new
///   row under the merge policy), while their other properties take the saved values;
///   Core Data's `mergeChanges(fromContextDidSave:)` refreshes them with their changes
///   merged, so their save no longer conflicts;
/// - `refresh(_:mergeChanges: false)` is applied only to objects without unsaved
///   relationship changes, and deletes only where the deleting context is up to date and no
///   other context has unsaved changes: outside those, Core Data leaves the result undefined
///   (an inconsistent graph, or a reference to a deleted row).
@Suite("Object graph generator", .onOwnThreads)
struct ObjectGraphGeneratorTests {
    struct Budget {
        var sequences = 20
        var steps = 30
        var seed: UInt64 = 2_311
        /// Stop starting sequences after this many seconds per store (`GRAPH_GENERATOR_SECONDS`;
        /// none by default), for long runs bounded by time.
        var seconds: Double? = nil
        /// The stores to run on (`GRAPH_GENERATOR_STORES=sqlite,postgres`, both by default).
        var stores = Set(StoreKind.allCases.map(\.rawValue))

        static var fromEnvironment: Budget {
            let settings = LongRunSettings(prefix: "GRAPH_GENERATOR_")
            var budget = Budget()
            budget.sequences = settings.count("SEQUENCES", budget.sequences)
            budget.steps = settings.count("STEPS", budget.steps)
            budget.seed = settings.seed(budget.seed)
            budget.seconds = settings.seconds
            budget.stores = settings.stores
            return budget
        }
    }

    /// Runs `steps` on a fresh store; returns the mismatch, if any, and the steps executed.
    static func check(_ steps: [GraphStep], on kind: StoreKind) throws -> (mismatch: GraphMismatch?, executed: Int, effective: [String: Int]) {
        let harness = try GraphHarness(kind)
        defer { harness.close() }
        do {
            try harness.run(steps)
            return (nil, harness.executed, harness.effective)
        } catch let mismatch as GraphMismatch {
            return (mismatch, harness.executed, harness.effective)
        }
    }

    /// Drops steps while the sequence still fails: first halves, then single steps, within a
    /// budget of runs. Returns the shortest failing sequence found and its mismatch.
    static func shrink(_ steps: [GraphStep], _ mismatch: GraphMismatch, on kind: StoreKind) throws -> ([GraphStep], GraphMismatch) {
        var best = Array(steps.prefix(mismatch.step + 1))
        var bestMismatch = mismatch
        var runs = 0
        var chunk = max(1, best.count / 2)
        while chunk >= 1 && runs < 300 {
            var start = 0
            var removedAny = false
            while start < best.count && runs < 300 {
                var candidate = best
                candidate.removeSubrange(start..<min(best.count, start + chunk))
                runs += 1
                if let found = try check(candidate, on: kind).mismatch {
                    best = Array(candidate.prefix(found.step + 1))
                    bestMismatch = found
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if !removedAny || chunk > 1 { chunk /= 2 }
            if chunk == 0 { break }
        }
        return (best, bestMismatch)
    }

    @Test("Random sequences keep every context and the store equal to the reference model", arguments: StoreKind.allCases)
    func randomSequences(_ kind: StoreKind) throws {
        let budget = Budget.fromEnvironment
        guard budget.stores.contains(kind.rawValue) else { return }
        let clock = ContinuousClock()
        let started = clock.now
        var executed = 0
        var effective: [String: Int] = [:]
        var sequences = 0
        for index in 0..<budget.sequences {
            if let seconds = budget.seconds, clock.now - started > .seconds(seconds) { break }
            sequences += 1
            let seed = budget.seed &+ UInt64(index)
            let steps = GraphStep.sequence(seed: seed, steps: budget.steps)
            let result = try Self.check(steps, on: kind)
            executed += result.executed
            effective.merge(result.effective, uniquingKeysWith: +)
            guard let mismatch = result.mismatch else { continue }
            let (shrunk, shrunkMismatch) = try Self.shrink(steps, mismatch, on: kind)
            let listing = shrunk.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
            Issue.record("""
                \(kind): sequence with seed \(seed) (GRAPH_GENERATOR_SEED=\(seed) GRAPH_GENERATOR_SEQUENCES=1 \
                GRAPH_GENERATOR_STEPS=\(budget.steps)) fails \(mismatch)
                shrunk to \(shrunk.count) steps:
                \(listing)
                which fails \(shrunkMismatch)
                """)
            return
        }
        print("object graph generator, \(kind): \(sequences) sequences of \(budget.steps) steps from seed \(budget.seed): \(executed) steps executed in \(clock.now - started); steps that changed something: \(effective.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }
}
