import Foundation
import ObjectGraph

// The entities the `#Predicate` oracle asks about, and random data for them: every value kind
// the generated predicates compare (extreme integers, ±0, infinities, empty and non-ASCII
// strings), optionals, a to-one and a to-many.

final class OracleItem: ManagedObject {
    /// Unique per item: how the answers are compared.
    @Attribute var key: Int64 = 0
    @Attribute var name: String = ""
    @Attribute var nickname: String? = nil
    /// From the extreme integers (never in arithmetic: Swift traps on overflow).
    @Attribute var number: Int64 = 0
    /// Small (|small| <= 1000): the integers of arithmetic.
    @Attribute var small: Int64 = 0
    @Attribute var maybe: Int64? = nil
    @Attribute var score: Double = 0
    @Attribute var ratio: Double? = nil
    @Attribute var flag: Bool = false
    @Relationship var group: OracleGroup?
    @Relationship(inverse: \OraclePart.$item, deleteRule: .cascade) var parts: Set<OraclePart>
}

final class OracleGroup: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var level: Int64 = 0
    @Relationship(inverse: \OracleItem.$group) var items: Set<OracleItem>
}

final class OraclePart: ManagedObject {
    @Attribute var label: String = ""
    @Attribute var weight: Int64 = 0
    @Relationship var item: OracleItem?
}

enum OracleData {
    static let entities: [ManagedObject.Type] = [OracleItem.self, OracleGroup.self, OraclePart.self]
    static let modelName = "PredicateOracle"

    /// Empty, ASCII, LIKE wildcards, ß, Turkish i, canonical equivalents (NFC and NFD), a
    /// combining mark with no precomposed form, flags, skin tones, CR LF.
    static let strings: [String] = [
        "", "a", "A", "b", "ab", "abc", "bc", "Abc", "ß", "ss", "SS", "straße", "STRASSE", "i", "I", "İ", "ı", "ıi",
        "é", "e\u{301}", "e", "café", "cafe\u{301}", "q\u{307}", "q", "Zoë", "zoe",
        "🇫🇷", "🇫🇷🇩🇪", "🇷🇩", "👍🏽", "👍", "a\r\nb", "\r", "\n", "%", "_", "a%c", "a_c", "*", "?", "'", "\"", "\\",
    ]
    static let integers: [Int64] = [0, 1, -1, 2, 42, -42, 1000, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
                                    1 << 53, (1 << 53) + 1, -(1 << 53) - 1, Int64(Int32.max) + 1]
    static let smallIntegers: [Int64] = [0, 1, -1, 2, -2, 3, 7, -7, 10, 100, -100, 1000, -1000]
    /// The doubles the store holds (no NaN: a store cannot hold it).
    static let doubles: [Double] = [0, -0.0, 1, -1, 0.5, 0.1, 0.30000000000000004, 2.5, -2.5, 1e300, -1e300,
                                    .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude,
                                    .leastNormalMagnitude, .infinity, -.infinity, 9_007_199_254_740_992, 4_503_599_627_370_497, 123456789.12345678]

    /// `Double.nan`, made at run time (the compiler warns of comparisons with the literal).
    static let noNumber = Double("nan")!

    /// Saves `count` random items (and their groups and parts) in `context`.
    static func fill(_ context: ManagedObjectContext, seed: UInt64, count: Int) throws {
        var random = GraphRandom(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        let groups = (0..<3).map { _ -> OracleGroup in
            let group = OracleGroup(context: context)
            group.title = pick(strings)
            group.level = pick(smallIntegers)
            return group
        }
        for index in 0..<count {
            let item = OracleItem(context: context)
            item.key = Int64(index)
            item.name = pick(strings)
            item.nickname = chance(30) ? nil : pick(strings)
            item.number = pick(integers)
            item.small = pick(smallIntegers)
            item.maybe = chance(30) ? nil : pick(smallIntegers)
            item.score = pick(doubles)
            item.ratio = chance(30) ? nil : pick(doubles)
            item.flag = chance(50)
            item.group = chance(25) ? nil : pick(groups)
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let part = OraclePart(context: context)
                part.label = pick(strings)
                part.weight = pick(smallIntegers)
                part.item = item
            }
        }
        try context.save()
    }

    /// Every string an item's answer may depend on.
    static func strings(of item: OracleItem) -> [String] {
        [item.name] + (item.nickname.map { [$0] } ?? []) + (item.group.map { [$0.title] } ?? []) + item.parts.map(\.label)
    }

    /// Every double an item's answer may depend on.
    static func doubles(of item: OracleItem) -> [Double] {
        [item.score] + (item.ratio.map { [$0] } ?? [])
    }
}
