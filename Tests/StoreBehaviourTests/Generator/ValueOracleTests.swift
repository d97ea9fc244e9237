import Foundation
import ObjectGraph
import Testing

/// The value oracle: random values of every numeric attribute type, a date and a string
/// (``ValueCase``) are saved one object a save, then read back by a fresh context and, at the
/// end, by a fresh container. Each value reads back as it was set (bit for bit for doubles
/// and floats, `==` with the same sign for Decimals, scalar for scalar for text), or the save
/// refuses it with a typed error naming the attribute, leaving the context's changes as they
/// were; the refused attributes are then fixed and the save retried, which must go through.
/// Which values must be refused is the oracle's own rule (``ValueCase/refusals(on:)``), so a
/// store that refuses too much fails as surely as one that changes a value.
///
/// The one difference from bit for bit, documented in docs/stores.md: the sign of zero.
/// Setting -0.0 where an attribute holds 0.0 is no change (they are `==`), and SQLite keeps
/// -0.0 as 0.0 (its REAL affinity stores a whole number as an integer).
///
/// Budget: `VALUE_ORACLE_CASES` cases per store (default 120) from seed `VALUE_ORACLE_SEED`
/// (default 4_243), on the stores `VALUE_ORACLE_STORES` names (default both), stopping after
/// `VALUE_ORACLE_SECONDS` seconds per store when given (long runs bounded by time).
/// docs/reliability.md records the long runs.
@Suite("Value oracle", .onOwnThreads)
struct ValueOracleTests {
    struct Budget {
        var cases: Int
        var seed: UInt64
        var seconds: Double?
        var stores: Set<String>

        static var fromEnvironment: Budget {
            let settings = LongRunSettings(prefix: "VALUE_ORACLE_")
            return Budget(cases: settings.count("CASES", 120), seed: settings.seed(4_243),
                          seconds: settings.seconds, stores: settings.stores)
        }
    }

    /// What a run did: cases saved, and refusals by attribute.
    struct Tally: CustomStringConvertible {
        var cases = 0
        var refusedSaves = 0
        var refusals: [String: Int] = [:]
        var failures: [String] = []

        var description: String {
            "\(cases) cases, \(refusedSaves) saves refused at first (\(refusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), \(failures.count) failures"
        }
    }

    @Test("Every value reads back as set, or is refused at save with the context unchanged", arguments: StoreKind.allCases)
    func valuesRoundTripOrAreRefused(_ kind: StoreKind) throws {
        let budget = Budget.fromEnvironment
        guard budget.stores.contains(kind.rawValue) else { return }
        let tally = try Self.run(on: kind, budget)
        print("Value oracle on \(kind.rawValue), seed \(budget.seed): \(tally)")
        for failure in tally.failures.prefix(10) { Issue.record("seed \(budget.seed) on \(kind.rawValue): \(failure)") }
    }

    static func run(on kind: StoreKind, _ budget: Budget) throws -> Tally {
        let store = try kind.newStore()
        let container = try store.valueContainer()
        defer { container.persistentStoreCoordinator.close() }
        var context = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
        var random = GraphRandom(seed: budget.seed)
        var tally = Tally()
        var saved: [Int: ValueCase] = [:]
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<budget.cases {
            if let seconds = budget.seconds, clock.now - start > .seconds(seconds) { break }
            if index % 100 == 0 { context = ManagedObjectContext(coordinator: container.persistentStoreCoordinator) }
            var value = ValueCase.random(serial: index + 1, using: &random)
            tally.cases += 1
            guard try check(&value, kind: kind, context: context, tally: &tally) != nil else { continue }
            saved[value.serial] = value
            let fresh = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
            let read = try fresh.fetch(FetchRequest<ValueSample>(predicate: FetchPredicate("serial == %@", value.serial)))
            guard read.count == 1 else {
                tally.failures.append("case \(index): \(read.count) rows read back for \(value)")
                continue
            }
            let differences = value.differences(from: read[0])
            if !differences.isEmpty { tally.failures.append("case \(index), a fresh context read \(differences) for \(value)") }
        }
        // The store as another container reads it.
        let other = try store.valueContainer()
        defer { other.persistentStoreCoordinator.close() }
        let all = try ManagedObjectContext(coordinator: other.persistentStoreCoordinator).fetch(FetchRequest<ValueSample>())
        if all.count != saved.count { tally.failures.append("a fresh container read \(all.count) rows, \(saved.count) were saved") }
        for sample in all {
            guard let value = saved[sample.serial] else { continue }
            let differences = value.differences(from: sample)
            if !differences.isEmpty { tally.failures.append("a fresh container read \(differences) for \(value)") }
        }
        return tally
    }

    /// Inserts `value` and saves; on a refusal checks the error and the context, fixes the
    /// refused attributes and saves again. Returns the saved object, or nil after a failure
    /// (recorded in `tally`).
    private static func check(_ value: inout ValueCase, kind: StoreKind, context: ManagedObjectContext,
                              tally: inout Tally) throws -> ValueSample? {
        let expected = value.refusals(on: kind)
        let sample = ValueSample(context: context)
        value.apply(to: sample)
        var refused: Set<String> = []
        for _ in 0..<3 {
            do {
                try context.save()
                if refused != expected {
                    tally.failures.append("\(value): expected refusals of \(expected.sorted()), got \(refused.sorted())")
                    return nil
                }
                return sample
            } catch {
                let keys = refusedKeys(error, among: expected)
                guard let keys, !keys.isEmpty, keys.isSubset(of: expected), refused.isDisjoint(with: keys) else {
                    tally.failures.append("\(value): the save threw \(error), expected refusals of \(expected.sorted())")
                    context.rollback()
                    return nil
                }
                // Validation names every refused number at once (NUL may come later, from the store).
                if error is ValidationError && refused.isEmpty && keys != expected && keys != expected.subtracting(["text"]) {
                    tally.failures.append("\(value): the save refused \(keys.sorted()) at first, expected \(expected.sorted())")
                    context.rollback()
                    return nil
                }
                if refused.isEmpty { tally.refusedSaves += 1 }
                for key in keys { tally.refusals[key, default: 0] += 1 }
                refused.formUnion(keys)
                // The context is as it was: the object still inserted, with the values set.
                let unchanged = value.differences(from: sample)
                if !(context.hasChanges && sample.isInserted && unchanged.isEmpty) {
                    tally.failures.append("\(value): after the refusal the context changed: \(unchanged)")
                    context.rollback()
                    return nil
                }
                value.fix(keys)
                value.apply(to: sample)
            }
        }
        tally.failures.append("\(value): still refused after three fixes")
        context.rollback()
        return nil
    }

    /// The attributes a refusal names: a ``ValidationError``'s keys (all of NaN and long
    /// Decimals at once); for NUL in text on PostgreSQL, any typed error naming `text`.
    private static func refusedKeys(_ error: any Error, among expected: Set<String>) -> Set<String>? {
        if let error = error as? ValidationError {
            let keys = Set(error.problems.compactMap(\.key))
            let messagesName = error.problems.allSatisfy { problem in
                problem.entity == "ValueSample" && problem.key.map { problem.message.contains("ValueSample.\($0)") || $0 == "text" } == true
            }
            return messagesName ? keys : nil
        }
        if error is StoreError, expected.contains("text"), "\(error)".contains("text") { return ["text"] }
        return nil
    }
}
