// The fuzz target's model and the code one input runs (main.swift has the entry point).
import Foundation
import ObjectGraph

final class FuzzItem: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var score: Int = 0
    @Attribute var ratio: Double = 0
    @Attribute var born: Date? = nil
    @Relationship(inverse: \FuzzTag.$item) var tags: Set<FuzzTag>
}

final class FuzzTag: ManagedObject {
    @Attribute var label: String = ""
    @Attribute var weight: Int = 0
    @Relationship var item: FuzzItem?
}

/// The store and context every input runs against, made on first use.
/// `nonisolated(unsafe)`: libFuzzer calls the entry point on one thread, one input at a time.
nonisolated(unsafe) private var fixture: (container: PersistentContainer, context: ManagedObjectContext)?

private func makeFixture() -> (container: PersistentContainer, context: ManagedObjectContext) {
    if let fixture { return fixture }
    do {
        let container = try PersistentContainer(name: "PredicateFuzz", entities: [FuzzItem.self, FuzzTag.self], location: .inMemory)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for index in 0..<5 {
                let item = FuzzItem(context: context)
                item.name = "item \(index)"
                item.score = index * 7 - 10
                item.ratio = Double(index) / 3
                item.born = index % 2 == 0 ? Date(timeIntervalSinceReferenceDate: Double(index) * 1e6) : nil
                for weight in 0..<index { FuzzTag(context: context).weight = weight; }
                let tag = FuzzTag(context: context)
                tag.label = "t\(index)"
                tag.item = item
            }
            try context.save()
            FuzzItem(context: context).name = "pending"      // never saved: fetches evaluate it in memory
        }
        fixture = (container, context)
        return (container, context)
    } catch {
        fatalError("the predicate fuzzer's in-memory store cannot be set up: \(error)")
    }
}

/// `nonisolated(unsafe)`: never mutated, read on the one thread libFuzzer calls from.
nonisolated(unsafe) let argumentPool: [Any?] = [1, 2.5, "abc", nil, [1, 2], ["abc", "x"], Date(timeIntervalSinceReferenceDate: 0), true, "name", "tags.weight", ""]

/// Runs one input: parse, then fetch and count with it. Errors are expected; crashes are not.
func runPredicateInput(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let predicate = try? FetchPredicate(text, argumentArray: argumentPool) else { return }
    let (_, context) = makeFixture()
    context.performAndWait {
        var request = FetchRequest<ManagedObject>(entityName: "FuzzItem")
        request.predicate = predicate
        _ = try? context.fetch(request)
        _ = try? context.count(for: request)
    }
}
