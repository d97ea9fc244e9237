import Foundation
import ObjectGraph
import Testing

// Issue 38, item 8: a `#Predicate` that searches for an empty string. Swift finds "" in every
// string (`"abc".contains("")` and `.starts(with: "")` are true), so Foundation's `evaluate`
// matches every object; the stores and the in-memory evaluation must too. A format string
// keeps NSPredicate's meaning: `CONTAINS ''` finds nothing (NSString finds no empty string).

@Suite("#Predicate with an empty search string", .onOwnThreads)
struct FoundationPredicateEmptyStringTests {
    static let empty = ""

    static var predicates: [(String, Predicate<Employee>)] {
        let empty = empty
        return [
            ("lastName.contains(\"\")", #Predicate<Employee> { $0.lastName.contains("") }),
            ("firstName.starts(with: \"\")", #Predicate<Employee> { $0.firstName.starts(with: "") }),
            ("lastName.contains(empty)", #Predicate<Employee> { $0.lastName.contains(empty) }),
            ("nickname?.contains(\"\") == true", #Predicate<Employee> { $0.nickname?.contains("") == true }),
            ("nickname?.starts(with: \"\") ?? false", #Predicate<Employee> { $0.nickname?.starts(with: "") ?? false }),
            ("department?.name.contains(\"\") != true", #Predicate<Employee> { $0.department?.name.contains("") != true }),
            ("lastName.contains(nickname ?? \"\")", #Predicate<Employee> { $0.lastName.contains($0.nickname ?? "") }),
            ("firstName.starts(with: nickname ?? \"\")", #Predicate<Employee> { $0.firstName.starts(with: $0.nickname ?? "") }),
            ("!lastName.contains(\"\")", #Predicate<Employee> { !$0.lastName.contains("") }),
        ]
    }

    @Test("The store and the in-memory evaluation select what Foundation's evaluate selects", arguments: StoreKind.allCases)
    func emptyNeedles(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        try RandomCompany.seed(7, in: store.container().viewContext)
        let context = try store.container().viewContext
        let everyone = try context.fetch(FetchRequest<Employee>(sortDescriptors: [SortKey("serial")]))
        #expect(everyone.contains { $0.nickname == "" } && everyone.contains { $0.nickname == nil } && everyone.contains { $0.department == nil })
        for (name, predicate) in Self.predicates {
            let byFoundation = try everyone.filter { try predicate.evaluate($0) }.map(\.serial)
            let translated = FetchPredicate(predicate)
            let stored = try context.fetch(FetchRequest<Employee>(predicate: predicate, sortDescriptors: [SortKey("serial")])).map(\.serial)
            let inMemory = try everyone.filter { try translated.evaluate(with: $0) }.map(\.serial)
            #expect(stored == byFoundation, "\(name): store, translated as \(translated.predicateFormat)")
            #expect(inMemory == byFoundation, "\(name): in memory, translated as \(translated.predicateFormat)")
        }
        let all = try everyone.filter { try Self.predicates[0].1.evaluate($0) }
        #expect(all.count == everyone.count, "Swift finds \"\" in every string")
    }

    @Test("A format string's empty search string still finds nothing, as NSPredicate's", arguments: StoreKind.allCases)
    func formatStringKeepsFoundationMeaning(_ kind: StoreKind) throws {
        let context = try kind.newStore().seededCompany()
        for format in ["lastName CONTAINS ''", "firstName BEGINSWITH ''", "lastName ENDSWITH %@", "nickname CONTAINS[cd] ''"] {
            let predicate = try FetchPredicate(format, argumentArray: format.contains("%@") ? [""] : [])
            #expect(try context.fetch(FetchRequest<Employee>(predicate: predicate)).isEmpty, "\(format)")
        }
        #expect(try context.fetch(FetchRequest<Employee>(predicate: try FetchPredicate("NOT lastName CONTAINS ''"))).count == 7)
    }
}
