import Foundation
import ObjectGraph
import Testing

// What the `#Predicate` oracle found, each as a fixed example that failed before its fix.

@Suite("#Predicate oracle findings", .onOwnThreads)
struct PredicateOracleFindingsTests {
    /// Three items: ratio nil, 1 and -1; score 0, 2.5 and -∞.
    private func items(_ kind: StoreKind) throws -> (ManagedObjectContext, [OracleItem]) {
        let context = try kind.newStore().container(OracleData.entities, name: OracleData.modelName).viewContext
        for (key, ratio, score) in [(0, nil, 0), (1, 1, 2.5), (2, -1, -Double.infinity)] as [(Int64, Double?, Double)] {
            let item = OracleItem(context: context)
            (item.key, item.ratio, item.score) = (key, ratio, score)
        }
        try context.save()
        return (context, try context.fetch(FetchRequest<OracleItem>(sortDescriptors: [SortKey("key")])))
    }

    /// Each predicate selects the expected keys in the store, in memory and by Foundation's evaluate.
    private func check(_ cases: [(String, Predicate<OracleItem>, [Int64])], _ context: ManagedObjectContext, _ items: [OracleItem],
                       storeAnswers: Bool = true) throws {
        for (name, predicate, expected) in cases {
            let translated = FetchPredicate(predicate)
            let store = try context.fetch(FetchRequest<OracleItem>(predicate: predicate, sortDescriptors: [SortKey("key")])).map(\.key)
            #expect(try items.filter { try predicate.evaluate($0) }.map(\.key) == expected, "\(name): Foundation")
            #expect(!storeAnswers || store == expected, "\(name): the store, translated as \(translated.predicateFormat)")
            #expect(try items.filter { try translated.evaluate(with: $0) }.map(\.key) == expected, "\(name): in memory")
        }
    }

    @Test("A comparison with Double.nan answers as Swift: only != holds, for optionals too", arguments: StoreKind.allCases)
    func comparisonsWithNaN(_ kind: StoreKind) throws {
        let (context, items) = try items(kind)
        let noNumber = OracleData.noNumber
        let cases: [(String, Predicate<OracleItem>, [Int64])] = [
            ("ratio == nan", #Predicate { $0.ratio == noNumber }, []),
            ("ratio != nan", #Predicate { $0.ratio != noNumber }, [0, 1, 2]),
            ("score < nan", #Predicate { $0.score < noNumber }, []),
            ("score >= nan", #Predicate { $0.score >= noNumber }, []),
            ("score != nan", #Predicate { $0.score != noNumber }, [0, 1, 2]),
            ("(ratio ?? nan) > 0", #Predicate { ($0.ratio ?? noNumber) > 0 }, [1]),
            ("(ratio ?? nan) != 1", #Predicate { ($0.ratio ?? noNumber) != 1 }, [0, 2]),
        ]
        try check(cases, context, items)
    }

    @Test("Two Double computations with no number (NaN) are not equal, as in Swift", arguments: StoreKind.allCases)
    func twoComputationsWithNoNumber(_ kind: StoreKind) throws {
        let (context, items) = try items(kind)
        let noNumber = OracleData.noNumber
        let cases: [(String, Predicate<OracleItem>, [Int64])] = [
            ("score * 0 != score * 0", #Predicate { $0.score * 0 != $0.score * 0 }, [2]),      // -∞ × 0 is NaN
            ("score * 0 == score * 0", #Predicate { $0.score * 0 == $0.score * 0 }, [0, 1]),
            ("(ratio ?? nan) == (ratio ?? nan)", #Predicate { ($0.ratio ?? noNumber) == ($0.ratio ?? noNumber) }, [1, 2]),
            ("(ratio ?? nan) >= (ratio ?? nan)", #Predicate { ($0.ratio ?? noNumber) >= ($0.ratio ?? noNumber) }, [1, 2]),
            ("score / score <= 1", #Predicate { $0.score / $0.score <= 1 }, [1]),
        ]
        // PostgreSQL computes a NaN of its own, equal to itself (D3 of the differences): only the
        // in-memory answer is checked there.
        try check(cases, context, items, storeAnswers: kind == .sqlite)
    }

    @Test("-x of a Double keeps the sign of zero: 1 / -score is -∞ where the score is 0", arguments: StoreKind.allCases)
    func negatedZero(_ kind: StoreKind) throws {
        let (context, items) = try items(kind)
        let cases: [(String, Predicate<OracleItem>, [Int64])] = [
            ("1 / -score < 0", #Predicate { 1 / -$0.score < 0 }, [0, 1]),
            ("1 / -(ratio ?? 0) > 0", #Predicate { 1 / -($0.ratio ?? 0) > 0 }, [2]),
        ]
        // PostgreSQL's x / 0.0 is nil (D3 of the differences): only the in-memory answer is checked there.
        try check(cases, context, items, storeAnswers: kind == .sqlite)
    }
}
