import Foundation
import ObjectGraph
import Testing

/// The Swift counterpart of Tests/Fixtures/ValidationRules/Club.xcdatamodel-contents.xml's
/// `Member`: the same rules as `@Attribute` options.
final class RuledMember: ManagedObject {
    @Attribute var serial: Int = 0
    @Attribute(.range(0...150)) var age: Int16 = 0
    @Attribute(.range(-1.5...99.5)) var score: Double = 0
    @Attribute(.range(Decimal(string: "0.01")!...Decimal(1000))) var fee: Decimal? = nil
    @Attribute(.range(Date(timeIntervalSinceReferenceDate: 0)...Date(timeIntervalSinceReferenceDate: 788_918_400))) var joined: Date? = nil
    @Attribute([.length(1...8), .pattern("[A-Z][a-z]*")]) var name: String = "Ann"
    @Attribute(.length(2...4)) var code: String? = nil

    static let containerName = "RuledMembers"
}

/// A model's validation rules are enforced at save, as Core Data enforces them: minimum and
/// maximum of numbers and dates, minimum and maximum length and a whole-string regular
/// expression of strings, minimum and maximum counts of to-many relationships; nil passes.
/// Every broken rule is reported together in one ``ValidationError`` naming object, key,
/// rule and value; the refused save writes nothing and the context keeps its changes.
/// Objects of an abstract entity are refused. The parsing side: ValidationRuleModelFileTests.
@Suite("Validation rules of the model", .onOwnThreads)
struct ValidationRuleTests {
    static var clubFile: URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.lastPathComponent != "Tests", folder.pathComponents.count > 1 { folder = folder.deletingLastPathComponent() }
        return folder.appendingPathComponent("Fixtures/ValidationRules/Club.xcdatamodel-contents.xml")
    }

    private func clubContainer(_ store: TestStore) throws -> PersistentContainer {
        try PersistentContainer(name: "Club", model: ManagedObjectModel(contentsOf: Self.clubFile), store: store.location,
                                options: store.kind.containerOptions)
    }

    private func ruledContainer(_ store: TestStore) throws -> PersistentContainer {
        try store.container([RuledMember.self], name: RuledMember.containerName)
    }

    /// The problems of a save that must be refused, by key.
    private func refusal(_ save: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> [String: ValidationError.Problem] {
        do {
            try save()
            Issue.record("the save went through", sourceLocation: sourceLocation)
        } catch let error as ValidationError {
            return Dictionary(error.problems.map { ($0.key ?? "-", $0) }, uniquingKeysWith: { first, _ in first })
        } catch {
            Issue.record("not a ValidationError: \(error)", sourceLocation: sourceLocation)
        }
        return [:]
    }

    private func members(_ container: PersistentContainer) throws -> [ManagedObject] {
        try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Member"))
    }

    // Before: the save went through and stored every one of these values.
    @Test("A model file's rules refuse a save, every broken rule reported together; nothing is written",
          arguments: StoreKind.allCases)
    func fileRulesRefuseTheSave(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try clubContainer(store).viewContext
        let member = try context.insertNewObject(forEntityName: "Member")
        try member.setValue("ann", forKey: "name")                       // pattern [A-Z][a-z]*
        try member.setValue(Int16(151), forKey: "age")                   // maximum 150
        try member.setValue(-1.75, forKey: "score")                      // minimum -1.5
        try member.setValue(Decimal(0), forKey: "fee")                   // minimum 0.01
        try member.setValue(Date(timeIntervalSinceReferenceDate: 788_918_401), forKey: "joined")   // after 2026-01-01
        try member.setValue("x", forKey: "code")                         // length 2...4
        let problems = refusal { try context.save() }
        #expect(problems.mapValues { $0.rule } == [
            "name": .stringPatternMatching, "age": .numberTooLarge, "score": .numberTooSmall,
            "fee": .numberTooSmall, "joined": .dateTooLate, "code": .stringTooShort,
        ])
        #expect(problems["age"]?.rule?.coreDataCode == 1610)
        #expect(problems["age"]?.value == "151")
        #expect(problems["age"]?.message.contains("151") == true && problems["age"]?.message.contains("150") == true)
        #expect(problems["name"]?.value == "\"ann\"")
        #expect(problems["joined"]?.message.contains("2026-01-01T00:00:01Z") == true, "\(problems["joined"]?.message ?? "")")
        #expect(problems.values.allSatisfy { $0.entity == "Member" && $0.objectID == member.objectID })
        #expect(context.hasChanges && member.isInserted, "the context keeps its changes")
        #expect(try members(clubContainer(store)).isEmpty, "nothing was written")

        // Fixed (and optional values nil, which no rule checks), the save goes through.
        try member.setValue("Ann", forKey: "name")
        try member.setValue(Int16(150), forKey: "age")
        try member.setValue(-1.5, forKey: "score")
        try member.setValue(nil, forKey: "fee")
        try member.setValue(Date(timeIntervalSinceReferenceDate: 788_918_400), forKey: "joined")
        try member.setValue(nil, forKey: "code")
        try context.save()
        let reader = try clubContainer(store)
        #expect(try members(reader).first?.value(forKey: "age") as? Int16 == 150)

        // An update that breaks a rule is refused too; the store keeps the saved value.
        try member.setValue(Int16(-1), forKey: "age")
        try member.setValue("Annabelle9", forKey: "name")   // 10 long: too long (checked before the pattern)
        let updateProblems = refusal { try context.save() }
        #expect(updateProblems.mapValues { $0.rule } == ["age": .numberTooSmall, "name": .stringTooLong])
        let rereader = try clubContainer(store)
        #expect(try members(rereader).first?.value(forKey: "age") as? Int16 == 150)
        #expect(member.isUpdated && member.value(forKey: "age") as? Int16 == -1)
    }

    // Before: minCount and maxCount were read and never checked.
    @Test("A to-many's counts: an optional one may be empty, else it holds minCount...maxCount",
          arguments: StoreKind.allCases)
    func relationshipCountsAreChecked(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try clubContainer(store).viewContext
        let member = try context.insertNewObject(forEntityName: "Member")
        try member.setValue("Bo", forKey: "name")
        let teams = try (0..<3).map { index in
            let team = try context.insertNewObject(forEntityName: "Team")
            try team.setValue("team \(index)", forKey: "title")
            return team
        }
        try member.setValue(Set(teams), forKey: "teams")
        let problems = refusal { try context.save() }
        #expect(problems.mapValues { $0.rule } == ["teams": .relationshipExceedsMaximumCount])
        #expect(problems["teams"]?.value == "3")
        #expect(try members(clubContainer(store)).isEmpty)

        try member.setValue(Set(teams.prefix(2)), forKey: "teams")
        try context.save()
        try member.setValue(Set<ManagedObject>(), forKey: "teams")   // optional: empty is allowed
        try context.save()
        let reader = try clubContainer(store)
        #expect(try members(reader).first.map { ($0.value(forKey: "teams") as? Set<ManagedObject>)?.count } == 0)
    }

    // Before: an object of the abstract Party was inserted and saved.
    @Test("An abstract entity: insertion by name throws; an object made another way is refused at save",
          arguments: StoreKind.allCases)
    func abstractEntitiesAreNotInsertable(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let container = try clubContainer(store)
        let context = container.viewContext
        #expect {
            try context.insertNewObject(forEntityName: "Party")
        } throws: { error in
            (error as? ModelError)?.code == .abstractEntity && "\(error)".contains("Member")
        }
        #expect(!context.hasChanges)
        let party = try #require(container.managedObjectModel.entitiesByName["Party"])
        let made = ManagedObject(entity: party, insertInto: context)
        try made.setValue("Cy", forKey: "name")
        let problems = refusal { try context.save() }
        #expect(problems["-"]?.rule == .abstractEntity)
        #expect(problems["-"]?.entity == "Party")
        #expect(problems["-"]?.message.contains("Party is abstract") == true)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Party")) == 1, "still pending in the context")
        #expect(try clubContainer(store).viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Party")) == 0)

        // A JSON import into the abstract entity: a typed error naming it, nothing stored.
        #expect {
            try context.importJSON(Data(#"[{"name": "Cy"}]"#.utf8), entityName: "Party")
        } throws: { error in
            error is JSONImportError && "\(error)".contains("Party is abstract")
        }
        #expect(try clubContainer(store).viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Party")) == 0)
    }

    /// Rules are not in the version hash: a store written without them opens with them, no
    /// migration. An object saved again is checked whole, as Core Data's `validateForUpdate()`
    /// checks every property: a value stored before the rule must be fixed with the change.
    // Before: only changed values were checked, and the change of `score` saved a member whose
    // stored name and age break the rules.
    @Test("A store written before the rules opens with them; a changed object is checked whole",
          arguments: StoreKind.allCases)
    func rulesApplyToTheWholeChangedObject(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let text = try String(contentsOf: Self.clubFile, encoding: .utf8)
        let file = TemporaryFolders.root.appendingPathComponent("Unruled-\(UUID().uuidString).xml")
        try FileManager.default.createDirectory(at: TemporaryFolders.root, withIntermediateDirectories: true)
        try Data(text.replacingOccurrences(of: #" (min|max)(ValueString|DateTimeInterval)="[^"]*"| regularExpressionString="[^"]*""#,
                                           with: "", options: .regularExpression).utf8).write(to: file)
        let unruled = try ManagedObjectModel(contentsOf: file)
        #expect(unruled.entitiesByName["Member"]?.attributes.allSatisfy { $0.validationRules.isEmpty } == true)
        #expect(unruled.entityVersionHashesByName == (try ManagedObjectModel(contentsOf: Self.clubFile)).entityVersionHashesByName)
        let before = try PersistentContainer(name: "Club", model: unruled, store: store.location, options: store.kind.containerOptions)
        let old = try before.viewContext.insertNewObject(forEntityName: "Member")
        try old.setValue("bob", forKey: "name")
        try old.setValue(Int16(200), forKey: "age")
        try before.viewContext.save()

        let after = try clubContainer(store)
        #expect(try members(after).count == 1)   // reading breaks no rule
        let member = try #require(try members(after).first)
        try member.setValue(2.5, forKey: "score")
        #expect(refusal { try after.viewContext.save() }.mapValues { $0.rule } == ["age": .numberTooLarge, "name": .stringPatternMatching])
        try member.setValue(Int16(40), forKey: "age")
        try member.setValue("Bob", forKey: "name")
        try after.viewContext.save()
        #expect(try members(try clubContainer(store)).first?.value(forKey: "score") as? Double == 2.5)
    }

    // Before: @Attribute had no rule options.
    @Test("@Attribute rules: problems of several objects reported together; a fix and the save goes through",
          arguments: StoreKind.allCases)
    func swiftRulesRefuseTheSave(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try ruledContainer(store).viewContext
        let first = RuledMember(context: context)
        first.serial = 1
        first.name = "Émile"          // not [A-Z][a-z]*
        let second = RuledMember(context: context)
        second.serial = 2
        second.code = "😀😀😀"          // 6 UTF-16 units: too long for 2...4
        second.fee = Decimal(string: "1000.001")!
        do {
            try context.save()
            Issue.record("the save went through")
        } catch let error as ValidationError {
            let found = Set(error.problems.map { "\($0.objectID == first.objectID ? 1 : 2).\($0.key ?? "-").\($0.rule?.name ?? "-")" })
            #expect(found == ["1.name.stringPatternMatching", "2.code.stringTooLong", "2.fee.numberTooLarge"], "\(error)")
        }
        #expect(try ruledContainer(store).viewContext.count(for: FetchRequest<RuledMember>()) == 0)
        first.name = "Emile"
        second.code = "😀😀"
        second.fee = 1000
        try context.save()
        #expect(try ruledContainer(store).viewContext.count(for: FetchRequest<RuledMember>()) == 2)
    }

    /// Random values around each bound, checked against a plain reference of each rule: the
    /// save is refused exactly when the reference says a value breaks its rule, for exactly
    /// the keys it names. `VALIDATION_RULES_CASES` and `VALIDATION_RULES_SEED` make a long run.
    @Test("Random values around the bounds are refused exactly when a plain reference says so",
          arguments: StoreKind.allCases)
    func randomValuesMatchTheReference(_ kind: StoreKind) throws {
        let settings = LongRunSettings(prefix: "VALIDATION_RULES_")
        let seed = settings.seed(UInt64(Date().timeIntervalSince1970))
        var random = GraphRandom(seed: seed)
        let store = try kind.newStore()
        let context = try ruledContainer(store).viewContext
        var saved = 0
        let cases = settings.count("CASES", 40)
        for serial in 0..<cases {
            let member = RuledMember(context: context)
            member.serial = serial
            // Every third case picks only values its reference allows, so saves that go
            // through are as certain as refusals; the others pick from every value.
            let validOnly = serial % 3 == 0
            var expected: Set<String> = []
            func pick<T>(_ key: String, _ values: [T], _ allowed: (T) -> Bool) -> T {
                let candidates = validOnly ? values.filter(allowed) : values
                let value = candidates[Int(random.next() % UInt64(candidates.count))]
                if !allowed(value) { expected.insert(key) }
                return value
            }

            member.age = pick("age", [Int16(-1), 0, 1, 75, 149, 150, 151, .min, .max]) { $0 >= 0 && $0 <= 150 }
            member.score = pick("score", [-1.5, -1.5000001, -1.4999999, 0, 99.5, 99.5000001, 99.4999999, -1e300, 1e300]) { $0 >= -1.5 && $0 <= 99.5 }
            member.fee = pick("fee", [nil, Decimal(string: "0.01")!, Decimal(string: "0.009")!, 0, 1000, Decimal(string: "1000.0001")!, 500]) { fee in
                fee.map { $0 >= Decimal(string: "0.01")! && $0 <= 1000 } ?? true
            }
            let seconds = pick("joined", [nil, 0, -0.001, -86400, 788_918_400, 788_918_400.001, 788_918_399, 400_000_000] as [Double?]) { seconds in
                seconds.map { $0 >= 0 && $0 <= 788_918_400 } ?? true
            }
            member.joined = seconds.map { Date(timeIntervalSinceReferenceDate: $0) }
            // Names of any characters, and names shaped like the pattern of any length.
            let names = (0..<6).map { index in
                let count = Int(random.next() % 10)
                let letters: [Character] = index % 2 == 0 ? ["A", "Z", "b", "z", "1", "é", "😀", " "] : ["a", "m", "z"]
                let rest = String((0..<count).map { _ in letters[Int(random.next() % UInt64(letters.count))] })
                return index % 2 == 0 ? rest : (count == 0 ? "" : "Q" + rest.dropFirst())
            } + ["Ann"]
            member.name = pick("name", names, Self.referenceNameIsValid)
            member.code = pick("code", [nil, "", "a", "ab", "abcd", "abcde", "😀", "😀😀", "😀😀a"] as [String?]) { code in
                code.map { (2...4).contains($0.utf16.count) } ?? true
            }

            do {
                try context.save()
                saved += 1
                #expect(expected.isEmpty, "seed \(seed), case \(serial): saved though \(expected) break their rules")
            } catch let error as ValidationError {
                let keys = Set(error.problems.map { $0.key ?? "-" })
                #expect(keys == expected, "seed \(seed), case \(serial): \(error)")
                #expect(error.problems.allSatisfy { $0.rule != nil && $0.value != nil }, "seed \(seed): \(error)")
                context.rollback()
            }
        }
        #expect(try ruledContainer(store).viewContext.count(for: FetchRequest<RuledMember>()) == saved, "seed \(seed)")
        #expect(saved >= (cases + 2) / 3, "seed \(seed): every valid-only case saves")
    }

    /// `[A-Z][a-z]*` matched as a whole, 1...8 UTF-16 units long, written without a regular
    /// expression.
    static func referenceNameIsValid(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard (1...8).contains(name.utf16.count), let first = scalars.first, ("A"..."Z").contains(first) else { return false }
        return scalars.dropFirst().allSatisfy { ("a"..."z").contains($0) }
    }
}
