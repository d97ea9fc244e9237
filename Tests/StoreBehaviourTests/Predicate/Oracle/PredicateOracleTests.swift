import Foundation
import ObjectGraph
import Testing

// The `#Predicate` oracle: random Foundation `Predicate` trees over random items, each
// answered by the store (a fetch), by the library's in-memory evaluation and by Foundation's
// own `Predicate.evaluate` on every item. The three must agree on every item, except where a
// documented difference (`OracleDifference.all`, the table in docs/predicates.md) explains
// it; a predicate the translation refuses with its typed error is counted, not a failure.
//
// Short in `swift test`. A long run:
//   PREDICATE_ORACLE_CASES=200 PREDICATE_ORACLE_PREDICATES=300 swift test --skip-build --filter PredicateOracleTests
// PREDICATE_ORACLE_SEED sets the first case's seed (a failure prints the seed that repeats it),
// PREDICATE_ORACLE_ITEMS the items per case, PREDICATE_ORACLE_STORES=sqlite,postgres the stores.

struct OracleBudget {
    var cases = 2
    var predicates = 150
    var items = 24
    var seed: UInt64 = 1
    var stores: Set<String> = Set(StoreKind.allCases.map(\.rawValue))

    static var current: OracleBudget {
        var budget = OracleBudget()
        let settings = LongRunSettings(prefix: "PREDICATE_ORACLE_")
        budget.cases = settings.count("CASES", budget.cases)
        budget.predicates = settings.count("PREDICATES", budget.predicates)
        budget.items = settings.count("ITEMS", budget.items)
        budget.seed = settings.seed(budget.seed)
        budget.stores = settings.stores
        return budget
    }
}

/// What one run saw.
struct OracleTally: CustomStringConvertible {
    var cases = 0
    var predicates = 0
    var evaluations = 0
    var refused: [String: Int] = [:]
    var explained: [String: Int] = [:]
    var failures: [String] = []
    /// Predicates that selected some but not all items.
    var discriminating = 0

    var description: String {
        "\(cases) cases, \(predicates) predicates (\(discriminating) selecting some but not all items), \(evaluations) item evaluations; "
            + "refused: \(refused.values.reduce(0, +)) \(refused.sorted { $0.key < $1.key }); explained by documented differences: \(explained.sorted { $0.key < $1.key }); "
            + "failures: \(failures.count)"
    }
}

@Suite("#Predicate oracle", .onOwnThreads)
struct PredicateOracleTests {
    @Test("Random #Predicate trees: each store, the in-memory evaluation and Foundation's evaluate agree on every item",
          arguments: StoreKind.allCases)
    func randomPredicates(_ kind: StoreKind) throws {
        let budget = OracleBudget.current
        guard budget.stores.contains(kind.rawValue) else { return }
        var tally = OracleTally()
        for index in 0..<budget.cases {
            let seed = budget.seed &+ UInt64(index)
            try runCase(kind, seed: seed, budget: budget, tally: &tally)
        }
        print("#Predicate oracle on \(kind.rawValue), seeds \(budget.seed)..: \(tally)")
        for failure in tally.failures.prefix(10) { Issue.record(Comment(rawValue: failure)) }     // the first ten, of all counted
        #expect(tally.predicates > tally.refused.values.reduce(0, +) * 2, "most generated predicates translate: \(tally)")
        #expect(tally.discriminating * 4 > tally.predicates, "enough predicates select some but not all items: \(tally)")
    }

    private func runCase(_ kind: StoreKind, seed: UInt64, budget: OracleBudget, tally: inout OracleTally) throws {
        let store = try kind.newStore()
        let context = try store.container(OracleData.entities, name: OracleData.modelName).viewContext
        try OracleData.fill(context, seed: seed, count: budget.items)
        context.reset()
        let items = try context.fetch(FetchRequest<OracleItem>(sortDescriptors: [SortKey("key")]))
        tally.cases += 1
        for index in 0..<budget.predicates {
            var generator = OraclePredicateGenerator(seed: seed &* 1_000_003 &+ UInt64(index))
            let predicate = generator.predicate(depth: 3)
            tally.predicates += 1
            let where_ = "\(kind.rawValue), seed \(seed), predicate \(index) (PREDICATE_ORACLE_SEED=\(seed) PREDICATE_ORACLE_CASES=1)"
            let translated = FetchPredicate(predicate)
            var byFoundation: Set<Int64> = []
            for item in items where try predicate.evaluate(item) { byFoundation.insert(item.key) }
            tally.evaluations += items.count
            let stored: Set<Int64>
            do {
                stored = Set(try context.fetch(FetchRequest<OracleItem>(predicate: translated)).map(\.key))
            } catch let error as FetchPredicateError {
                tally.refused["\(error.code): \(error.message.prefix(45))", default: 0] += 1
                if items.contains(where: { (try? translated.evaluate(with: $0)) != nil }) {
                    tally.failures.append("\(where_): the store refused (\(error)) but the in-memory evaluation answered")
                }
                continue
            } catch {
                let disagreement = OracleDisagreement(features: generator.features, item: nil, store: kind, error: error)
                if let difference = OracleDifference.explaining(disagreement) {
                    tally.explained[difference.id, default: 0] += 1
                } else {
                    tally.failures.append("\(where_): the store threw \(error) for \(translated.predicateFormat)\n\(predicate.expression)")
                }
                continue
            }
            if !byFoundation.isEmpty && byFoundation.count < items.count { tally.discriminating += 1 }
            for item in items {
                let expected = byFoundation.contains(item.key)
                let inMemory: Bool
                do {
                    inMemory = try translated.evaluate(with: item)
                } catch {
                    tally.failures.append("\(where_): the store answered but the in-memory evaluation threw \(error) for \(translated.predicateFormat)")
                    break
                }
                let answers: [(String, StoreKind?, Bool)] = [("the store", kind, stored.contains(item.key)), ("in memory", nil, inMemory)]
                for (who, answerer, answer) in answers where answer != expected {
                    let disagreement = OracleDisagreement(features: generator.features, item: item, store: answerer, error: nil)
                    if let difference = OracleDifference.explaining(disagreement) {
                        tally.explained[difference.id, default: 0] += 1
                    } else {
                        tally.failures.append("""
                            \(where_): \(who) answers \(answer), Foundation \(expected), for item \(describe(item))
                            translated: \(translated.predicateFormat)
                            string constants: \(generator.features.strings.map(quoted).sorted())
                            tree: \(predicate.expression)
                            """)
                    }
                }
            }
        }
    }

    private func describe(_ item: OracleItem) -> String {
        "key \(item.key) name \(quoted(item.name)) nickname \(item.nickname.map(quoted) ?? "nil") number \(item.number) "
            + "small \(item.small) maybe \(item.maybe.map { "\($0)" } ?? "nil") score \(item.score) ratio \(item.ratio.map { "\($0)" } ?? "nil") "
            + "flag \(item.flag) group \(item.group.map { "(\(quoted($0.title)), \($0.level))" } ?? "nil") "
            + "parts \(item.parts.map { "(\(quoted($0.label)), \($0.weight))" }.sorted())"
    }
}

/// `text` quoted, with every scalar outside ASCII escaped (so `é` and `e\u{301}` differ).
func quoted(_ text: String) -> String {
    "\"" + text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\""
}
