import Foundation
import ObjectGraph
import XCTest

/// The same predicate over the same data selects the same objects through SQL and in memory,
/// for every operator and modifier; and those objects are the ones the predicate means.
final class PredicateConformanceTests: QueryTestCase {
    struct Case {
        let format: String
        let arguments: [Any?]
        let expected: Set<String>
        let line: UInt
        init(_ format: String, _ arguments: [Any?] = [], _ expected: Set<String>, line: UInt = #line) {
            (self.format, self.arguments, self.expected, self.line) = (format, arguments, expected, line)
        }
    }

    static let everyone: Set<String> = ["John", "Jane", "Émile", "Ana", "Bob", "Mary", "Li"]

    func cases(_ c: Company) -> [Case] {
        let all = Self.everyone
        return [
            // Comparison operators and their spellings
            Case("age > 40", [], ["John", "Émile", "Bob", "Mary"]),
            Case("age >= 42", [], ["John", "Émile", "Bob", "Mary"]),
            Case("age => 51", [], ["Émile", "Bob"]),
            Case("age < 35", [], ["Ana"]),
            Case("age <= 35", [], ["Ana", "Jane"]),
            Case("age =< 35", [], ["Ana", "Jane"]),
            Case("age == 42", [], ["John"]),
            Case("age = 42", [], ["John"]),
            Case("age != 42", [], all.subtracting(["John"])),
            Case("age <> 42", [], all.subtracting(["John"])),
            Case("42 < age", [], ["Émile", "Bob", "Mary"]),
            Case("age BETWEEN {30, 45}", [], ["John", "Jane", "Mary", "Li"]),
            Case("age BETWEEN %@", [[30, 40]], ["Jane", "Li"]),
            Case("age IN {29, 60}", [], ["Ana", "Bob"]),
            Case("age IN %@", [[29, 60]], ["Ana", "Bob"]),
            Case("age IN %@", [Set([35])], ["Jane"]),
            Case("age IN %@", [[Int]()], []),
            Case("salary > 3000.5", [], all.subtracting(["Ana"])),
            Case("salary == 3000.5", [], ["Ana"]),
            Case("salary >= %f", [6000.0], ["Jane", "Bob", "Mary", "Li"]),
            Case("age > %d", [50], ["Émile", "Bob"]),
            Case("age > %ld AND age < %lld", [40, 50], ["John", "Mary"]),
            Case("age == -1", [], []),
            // Booleans
            Case("active == YES", [], all.subtracting(["Émile"])),
            Case("active == FALSE", [], ["Émile"]),
            Case("active == %@", [false], ["Émile"]),
            Case("active != TRUE", [], ["Émile"]),
            // Logic and precedence
            Case("age > 40 AND salary < 6000", [], ["John", "Émile"]),
            Case("age > 40 && active == YES", [], ["John", "Bob", "Mary"]),
            Case("age < 30 OR age > 55", [], ["Ana", "Bob"]),
            Case("age < 30 || age > 55", [], ["Ana", "Bob"]),
            Case("age < 30 OR age > 55 AND active == NO", [], ["Ana"]),
            Case("(age < 30 OR age > 55) AND active == YES", [], ["Ana", "Bob"]),
            Case("NOT age > 40", [], ["Jane", "Ana", "Li"]),
            Case("!(age > 40)", [], ["Jane", "Ana", "Li"]),
            Case("NOT age > 40 AND age > 30", [], ["Jane", "Li"]),
            Case("NOT (age > 40 OR age < 30)", [], ["Jane", "Li"]),
            Case("TRUEPREDICATE", [], all),
            Case("FALSEPREDICATE", [], []),
            Case("TRUEPREDICATE AND NOT FALSEPREDICATE", [], all),
            // Strings: plain, [c], [d], [cd], for all of Unicode
            Case("lastName == 'Smith'", [], ["John"]),
            Case("lastName == \"Smith\"", [], ["John"]),
            Case("lastName ==[c] 'SMITH'", [], ["John", "Jane"]),
            Case("lastName !=[c] 'SMITH'", [], all.subtracting(["John", "Jane"])),
            Case("firstName ==[cd] 'EMILE'", [], ["Émile"]),
            Case("firstName ==[d] 'Emile'", [], ["Émile"]),
            Case("firstName ==[d] 'emile'", [], []),
            Case("firstName ==[c] 'émile'", [], ["Émile"]),
            Case("firstName == 'E\\u0301mile'", [], []),
            Case("firstName ==[c] 'E\\u0301MILE'", [], ["Émile"]),
            Case("lastName ==[cd] 'angstrom'", [], ["Ana"]),
            Case("lastName BEGINSWITH 'S'", [], ["John"]),
            Case("lastName BEGINSWITH[c] 's'", [], ["John", "Jane"]),
            Case("lastName BEGINSWITH[cd] 'å'", [], ["Ana"]),
            Case("lastName BEGINSWITH[d] 'A'", [], ["Ana"]),
            Case("lastName BEGINSWITH ''", [], []),     // an empty prefix is never found (NSString.hasPrefix)
            Case("lastName ENDSWITH 'th'", [], ["John", "Jane"]),
            Case("lastName ENDSWITH[c] 'TH'", [], ["John", "Jane"]),
            Case("lastName ENDSWITH 'öm'", [], ["Ana"]),
            Case("lastName ENDSWITH[cd] 'OM'", [], ["Ana"]),
            Case("lastName CONTAINS 'o'", [], ["Émile", "Mary"]),
            Case("lastName CONTAINS[c] 'O'", [], ["Émile", "Mary", "Bob"]),
            Case("lastName CONTAINS[cd] 'O'", [], ["Émile", "Mary", "Bob", "Ana"]),
            Case("lastName CONTAINS \"'\"", [], ["Bob"]),
            Case("lastName LIKE 'S*h'", [], ["John"]),
            Case("lastName LIKE[c] 's?ith'", [], ["John", "Jane"]),
            Case("lastName LIKE '*'", [], all),
            Case("lastName LIKE[cd] '*STRO*'", [], ["Ana"]),
            Case("nickname LIKE 'b%_\\\\*?x'", [], ["Bob"]),
            Case("nickname LIKE 'b%_\\\\*'", [], []),
            Case("lastName MATCHES '[A-Z].*'", [], all.subtracting(["Jane", "Ana"])),
            Case("lastName MATCHES[c] 'smith'", [], ["John", "Jane"]),
            Case("lastName MATCHES 'mit'", [], []),
            Case("lastName < 'O'", [], ["Mary"]),
            Case("lastName >= 'Z'", [], ["Émile", "Jane", "Ana"]),
            Case("lastName <[c] 'o'", [], ["Mary"]),
            Case("firstName BETWEEN {'A', 'J'}", [], ["Ana", "Bob"]),
            Case("lastName IN {'Smith', 'Zola'}", [], ["John", "Émile"]),
            Case("lastName IN[c] {'SMITH', 'zola'}", [], ["John", "Jane", "Émile"]),
            Case("lastName BEGINSWITH[c] %@ OR lastName IN %@", ["s", ["Jones", "Wu"]], ["John", "Jane", "Mary", "Li"]),
            Case("%K == %@", ["lastName", "Smith"], ["John"]),
            Case("%K BEGINSWITH %@", ["department.name", "S"], ["John", "Jane", "Mary"]),
            Case("firstName == %s", ["Ana"], ["Ana"]),
            // nil
            Case("nickname == nil", [], ["John", "Li"]),
            Case("nickname == NULL", [], ["John", "Li"]),
            Case("nickname != nil", [], all.subtracting(["John", "Li"])),
            Case("nickname == %@", [nil], ["John", "Li"]),
            Case("nickname == ''", [], ["Ana"]),
            Case("nickname != 'JJ'", [], all.subtracting(["Jane"])),
            Case("nickname BEGINSWITH 'b%'", [], ["Bob"]),
            Case("nickname CONTAINS '_'", [], ["Bob"]),
            Case("NOT nickname BEGINSWITH 'J'", [], all.subtracting(["Jane"])),
            Case("NOT (nickname == nil)", [], all.subtracting(["John", "Li"])),
            Case("nickname IN {'JJ', nil}", [], ["Jane", "John", "Li"]),
            Case("nickname ==[c] nil", [], ["John", "Li"]),
            Case("nickname !=[c] 'jj'", [], all.subtracting(["Jane"])),
            // Dates and UUIDs
            Case("hired == nil", [], ["Jane", "Li"]),
            Case("hired != nil", [], all.subtracting(["Jane", "Li"])),
            Case("hired > %@", [Self.date(2019)], ["John", "Émile", "Ana"]),
            Case("hired < %@", [Self.date(2019)], ["Bob", "Mary"]),
            Case("hired BETWEEN %@", [[Self.date(2019), Self.date(2020)]], ["John", "Émile"]),
            Case("hired >= CAST(599529600, 'NSDate')", [], ["John", "Ana"]),     // 2020-01-01: seconds since 2001 [PPG CAST]
            Case("badge == %@", [c.ana.badge], ["Ana"]),
            Case("badge IN %@", [[c.ana.badge, c.bob.badge]], ["Ana", "Bob"]),
            Case("badge != %@", [c.ana.badge], all.subtracting(["Ana"])),
            // To-one key paths and objects
            Case("department.name == 'Sales'", [], ["John", "Jane", "Mary"]),
            Case("department.name CONTAINS[cd] 'etudes'", [], ["Émile"]),
            Case("department.name CONTAINS[cd] 'sales' AND hired != nil", [], ["John", "Mary"]),
            Case("department.budget > 60", [], ["John", "Jane", "Mary", "Émile"]),
            Case("department.name != 'Sales'", [], ["Émile", "Ana", "Bob", "Li"]),
            Case("department == nil", [], ["Ana", "Li"]),
            Case("department != nil", [], all.subtracting(["Ana", "Li"])),
            Case("department == %@", [c.sales], ["John", "Jane", "Mary"]),
            Case("department == %@", [c.sales.objectID], ["John", "Jane", "Mary"]),
            Case("department != %@", [c.sales], ["Émile", "Ana", "Bob", "Li"]),
            Case("department IN %@", [[c.sales, c.research]], ["John", "Jane", "Mary", "Bob"]),
            Case("manager.lastName == 'Jones'", [], ["John", "Jane", "Émile"]),
            Case("manager.department.name == 'Sales'", [], ["John", "Jane", "Émile"]),
            Case("manager.department.name == nil", [], ["Ana", "Bob", "Mary", "Li"]),
            Case("self == %@", [c.john], ["John"]),
            Case("SELF != %@", [c.john], all.subtracting(["John"])),
            Case("self IN %@", [[c.john, c.ana]], ["John", "Ana"]),
            Case("age > %@ AND department.name == %@", [40, "Sales"], ["John", "Mary"]),
            Case("firstName == %@ AND age BETWEEN {30, 45}", ["John"], ["John"]),
            // To-many: ANY SOME ALL NONE, IN, CONTAINS
            Case("ANY projects.title == 'Apollo'", [], ["John", "Mary", "Émile"]),
            Case("SOME projects.title == 'Zeus'", [], ["Ana"]),
            Case("projects.title == 'Zeus'", [], ["Ana"]),
            Case("ALL projects.title == 'Apollo'", [], all.subtracting(["Ana"])),
            Case("NONE projects.title == 'Apollo'", [], ["Jane", "Ana", "Bob", "Li"]),
            Case("ANY projects.title BEGINSWITH[c] 'a'", [], ["John", "Mary", "Émile"]),
            Case("'Apollo' IN projects.title", [], ["John", "Mary", "Émile"]),
            Case("%@ IN projects", [c.zeus], ["Ana"]),
            Case("projects CONTAINS %@", [c.apollo], ["John", "Mary", "Émile"]),
            Case("ANY projects == %@", [c.apollo], ["John", "Mary", "Émile"]),
            Case("NOT (ANY projects.title == 'Apollo')", [], ["Jane", "Ana", "Bob", "Li"]),
            // Collection operators and SUBQUERY
            Case("projects.@count > 0", [], ["John", "Mary", "Émile", "Ana"]),
            Case("projects.@count == 0", [], ["Jane", "Bob", "Li"]),
            Case("department.employees.@count > 2", [], ["John", "Jane", "Mary"]),
            Case("department.employees.@avg.age > 41", [], ["Émile", "Bob"]),
            Case("department.employees.@sum.salary >= 20000", [], ["John", "Jane", "Mary"]),
            Case("department.employees.@max.age == 60", [], ["Bob"]),
            Case("department.employees.@min.age < 40", [], ["John", "Jane", "Mary"]),
            Case("department.employees.@max.hired > %@", [Self.date(2019, 12)], ["John", "Jane", "Mary"]),
            Case("SUBQUERY(department.employees, $e, $e.age > 40 AND $e.salary > 4500).@count == 2", [], ["John", "Jane", "Mary"]),
            Case("SUBQUERY(department.employees, $e, $e.nickname == nil).@count > 0", [], ["John", "Jane", "Mary"]),
            Case("SUBQUERY(projects, $p, $p.title == 'Apollo' AND $p.members.@count == 3).@count > 0", [], ["John", "Mary", "Émile"]),
            Case("SUBQUERY(projects, $p, ANY $p.members.age < 30).@count > 0", [], ["Ana"]),
        ]
    }

    func testEveryCaseSelectsTheSameObjectsInSQLAndInMemory() throws {
        let company = try seedCompany()
        for test in cases(company) {
            let predicate: FetchPredicate
            do {
                predicate = try FetchPredicate(test.format, argumentArray: test.arguments)
            } catch {
                XCTFail("\(test.format): \(error)", line: test.line)
                continue
            }
            do {
                let sql = try sqlNames(predicate)
                let memory = try memoryNames(predicate)
                XCTAssertEqual(sql, memory, "SQL and memory disagree on \(test.format)", line: test.line)
                XCTAssertEqual(sql, test.expected, "SQL: \(test.format)", line: test.line)
                XCTAssertEqual(memory, test.expected, "memory: \(test.format)", line: test.line)
            } catch {
                XCTFail("\(test.format): \(error)", line: test.line)
            }
        }
    }

    func testToManyQuantifiersOnManagersMatchInBothBackEnds() throws {
        try seedCompany()
        let cases: [(String, Set<String>)] = [
            ("ANY reports.age > 50", ["Mary"]),
            ("ALL reports.age > 30", ["Mary"]),
            ("ALL reports.age > 20", ["Mary", "Li"]),
            ("NONE reports.age > 50", ["Li"]),
            ("reports.@count >= 3", ["Mary"]),
            ("reports.@count == 1", ["Li"]),
            ("reports.@avg.age > 40", ["Mary"]),
            ("reports.@sum.salary > 10000", ["Mary"]),
            ("reports.@max.age == 51", ["Mary"]),
            ("reports.@min.age < 30", ["Li"]),
            ("SUBQUERY(reports, $r, $r.age > 40).@count > 0", ["Mary"]),
            ("SUBQUERY(reports, $r, $r.lastName BEGINSWITH[c] 's').@count == 2", ["Mary"]),
            ("level == 2", ["Mary"]),
        ]
        for (format, expected) in cases {
            let predicate = try FetchPredicate(format)
            var request = FetchRequest<QManager>(predicate: predicate)
            request.includesPendingChanges = false
            let sql = Set(try context.fetch(request).map(\.firstName))
            let memory = Set(try context.fetch(FetchRequest<QManager>()).filter { try predicate.evaluate(with: $0) }.map(\.firstName))
            XCTAssertEqual(sql, expected, "SQL: \(format)")
            XCTAssertEqual(memory, expected, "memory: \(format)")
        }
    }

    func testTypedKeyPathPredicatesMeanWhatTheirFormatStringsMean() throws {
        try seedCompany()
        let pairs: [(FetchPredicate, String)] = [
            (\QEmployee.$age > 40 && \QEmployee.$lastName == "Smith", "age > 40 AND lastName == 'Smith'"),
            (\QEmployee.$age >= 42 || \QEmployee.$age < 30, "age >= 42 OR age < 30"),
            (!(\QEmployee.$age <= 35), "NOT age <= 35"),
            (\QEmployee.$age != 42, "age != 42"),
            (\QEmployee.$nickname == nil, "nickname == nil"),
            (\QEmployee.$hired != nil, "hired != nil"),
            (\QEmployee.$active == false, "active == NO"),
            (.beginsWith(\QEmployee.$lastName, "s", options: .caseInsensitive), "lastName BEGINSWITH[c] 's'"),
            (.contains(\QEmployee.$lastName, "O", options: [.caseInsensitive, .diacriticInsensitive]), "lastName CONTAINS[cd] 'O'"),
            (.endsWith(\QEmployee.$lastName, "th"), "lastName ENDSWITH 'th'"),
            (.like(\QEmployee.$lastName, "s?ith", options: .caseInsensitive), "lastName LIKE[c] 's?ith'"),
            (.matches(\QEmployee.$lastName, "[A-Z].*"), "lastName MATCHES '[A-Z].*'"),
            (.in(\QEmployee.$lastName, ["Wu", "Zola"]), "lastName IN {'Wu', 'Zola'}"),
            (.in(\QEmployee.$lastName, ["SMITH"], options: .caseInsensitive), "lastName IN[c] {'SMITH'}"),
            (.equal(\QEmployee.$firstName, "emile", options: [.caseInsensitive, .diacriticInsensitive]), "firstName ==[cd] 'emile'"),
            (.between(\QEmployee.$age, 30...40), "age BETWEEN {30, 40}"),
        ]
        for (typed, format) in pairs {
            let parsed = try FetchPredicate(format)
            XCTAssertEqual(try sqlNames(typed), try sqlNames(parsed), format)
            XCTAssertEqual(try memoryNames(typed), try sqlNames(parsed), format)
        }
        let typed: FetchPredicate = \QEmployee.$age > 40 && \QEmployee.$lastName == "Smith"
        XCTAssertEqual(try sqlNames(typed), ["John"])
    }

    func testTypedRelationshipComparisonsAndUnsavedObjectsAgree() throws {
        let company = try seedCompany()
        let inSales: FetchPredicate = \QEmployee.$department == company.sales
        XCTAssertEqual(try sqlNames(inSales), ["John", "Jane", "Mary"])
        XCTAssertEqual(try memoryNames(inSales), ["John", "Jane", "Mary"])
        let homeless: FetchPredicate = \QEmployee.$department == nil
        XCTAssertEqual(try sqlNames(homeless), ["Ana", "Li"])
        XCTAssertEqual(try sqlNames(\QEmployee.$department != company.sales), ["Émile", "Ana", "Bob", "Li"])

        // An unsaved object is judged on its unsaved relationships, in memory and in a fetch.
        let newcomer = QEmployee(context: context)
        (newcomer.firstName, newcomer.age) = ("Zed", 50)
        newcomer.department = company.etudes
        newcomer.projects = [company.apollo]
        let predicate = try FetchPredicate("department.name ==[cd] 'etudes' AND ANY projects.title == 'Apollo' AND age >= 50")
        XCTAssertTrue(try predicate.evaluate(with: newcomer))
        XCTAssertEqual(Set(try context.fetch(FetchRequest<QEmployee>(predicate: predicate)).map(\.firstName)), ["Émile", "Zed"])
        XCTAssertEqual(try context.count(for: FetchRequest<QEmployee>(predicate: predicate)), 2)
    }

    func testSubstitutionVariablesFillTemplates() throws {
        try seedCompany()
        let template = try FetchPredicate("lastName == $NAME OR age > $AGE")
        let filled = try template.withSubstitutionVariables(["NAME": "Wu", "AGE": 55])
        XCTAssertEqual(try sqlNames(filled), ["Li", "Bob"])
        XCTAssertEqual(try memoryNames(filled), ["Li", "Bob"])
        XCTAssertThrowsError(try sqlNames(template)) { error in
            XCTAssertEqual((error as? FetchPredicateError)?.code, .variable)
        }
    }
}

extension PredicateConformanceTests {
    func testLongInListsAreOneParameterAndMeanTheSame() throws {
        let company = try seedCompany()
        let ages = Array(1000..<41_000) + [42]
        let names = (0..<500).map { "name \($0) with 'quotes' and \"doubles\" and \\ and é" } + ["Ångström", "O'Brien"]
        let ids = (0..<300).map { _ in company.etudes.objectID } + [company.sales.objectID]
        let cases: [(String, Any, Set<String>)] = [
            ("age IN %@", ages, ["John"]),
            ("lastName IN %@", names, ["Ana", "Bob"]),
            ("department IN %@", ids, ["John", "Jane", "Mary", "Émile"]),
            ("NOT age IN %@", ages, PredicateConformanceTests.everyone.subtracting(["John"])),
        ]
        startRecording()
        for (format, argument, expected) in cases {
            let predicate = try FetchPredicate(format, argument)
            XCTAssertEqual(try sqlNames(predicate), expected, format)
            XCTAssertEqual(try memoryNames(predicate), expected, format)
        }
        XCTAssertTrue(recorder.queries.contains { $0.contains("json_each(?)") })
    }
}
