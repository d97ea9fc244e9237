import Foundation
import ObjectGraph
import Testing

/// Values a store cannot hold are refused at save with a ``ValidationError`` naming the
/// entity, the attribute and the value; the context keeps its changes, so the save can be
/// retried after a fix. Everything else reads back as it was set (docs/stores.md). The
/// random counterpart: ValueOracleTests.
@Suite("Values a store cannot hold", .onOwnThreads)
struct UnstorableValueTests {
    /// The one problem of a refused save, which must name `key` and mention `value`.
    private func expectRefusal(_ save: () throws -> Void, key: String, value: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try save()
            Issue.record("the save went through", sourceLocation: sourceLocation)
        } catch let error as ValidationError {
            #expect(error.problems.map(\.key) == [key], "\(error)", sourceLocation: sourceLocation)
            #expect(error.problems.first?.entity == "ValueSample", sourceLocation: sourceLocation)
            let message = error.problems.first?.message ?? ""
            #expect(message.contains("ValueSample.\(key)") && message.contains(value), "\(message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a ValidationError: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A fresh store of `kind`, a context on it, and a new sample with serial 1 in the context.
    private func newSample(_ kind: StoreKind) throws -> (TestStore, ManagedObjectContext, ValueSample) {
        let store = try kind.newStore()
        let context = try store.valueContainer().viewContext
        let sample = ValueSample(context: context)
        sample.serial = 1
        return (store, context, sample)
    }

    /// The sample with `serial`, read by a fresh container.
    private func reread(_ store: TestStore, serial: Int = 1) throws -> ValueSample? {
        let context = try store.valueContainer().viewContext
        return try context.fetch(FetchRequest<ValueSample>(predicate: FetchPredicate("serial == %@", serial))).first
    }

    // Before: a non-optional Double set to NaN was written as NULL and read back 0.0 (SQLite).
    @Test("NaN in a Double, Float or Date is refused at save; after a fix the save goes through",
          arguments: StoreKind.allCases)
    func nanIsRefused(_ kind: StoreKind) throws {
        let (store, context, sample) = try newSample(kind)
        sample.double = .nan
        expectRefusal({ try context.save() }, key: "double", value: "NaN")
        #expect(context.hasChanges && sample.isInserted && sample.double.isNaN, "the context keeps its changes")
        #expect(try reread(store) == nil, "nothing was written")

        sample.double = 2.5
        sample.optionalDouble = .nan
        expectRefusal({ try context.save() }, key: "optionalDouble", value: "NaN")
        sample.optionalDouble = nil
        sample.float = .nan
        expectRefusal({ try context.save() }, key: "float", value: "NaN")
        sample.float = 0.5
        sample.date = Date(timeIntervalSinceReferenceDate: .nan)
        expectRefusal({ try context.save() }, key: "date", value: "NaN")
        sample.date = Date(timeIntervalSinceReferenceDate: 1)
        try context.save()

        // An update to NaN is refused too, and leaves the stored row as it was.
        sample.optionalFloat = .nan
        expectRefusal({ try context.save() }, key: "optionalFloat", value: "NaN")
        context.rollback()
        let read = try #require(try reread(store))
        #expect(read.double == 2.5 && read.optionalDouble == nil && read.float == 0.5 && read.optionalFloat == nil)
    }

    @Test("±infinity and the extremes of a double are kept exactly", arguments: StoreKind.allCases)
    func infinityIsKept(_ kind: StoreKind) throws {
        let (store, context, sample) = try newSample(kind)
        sample.double = .infinity
        sample.optionalDouble = -.infinity
        sample.float = -.infinity
        sample.optionalFloat = .leastNonzeroMagnitude
        sample.date = Date(timeIntervalSinceReferenceDate: -.infinity)
        sample.int64 = .min
        try context.save()
        let read = try #require(try reread(store))
        #expect(read.double == .infinity && read.optionalDouble == -.infinity && read.float == -.infinity)
        #expect(read.optionalFloat?.bitPattern == Float.leastNonzeroMagnitude.bitPattern)
        #expect(read.date.timeIntervalSinceReferenceDate == -.infinity && read.int64 == .min)
    }

    // Before: 12345678901234567890.123456789 read back as 12345678901234600000 on both stores.
    @Test("A Decimal of 29 digits is kept exactly on PostgreSQL and refused on SQLite", arguments: StoreKind.allCases)
    func longDecimal(_ kind: StoreKind) throws {
        let long = Decimal(string: "12345678901234567890.123456789")!
        let (store, context, sample) = try newSample(kind)
        sample.decimal = long
        switch kind {
        case .postgres:
            try context.save()
            #expect(try reread(store)?.decimal == long)
        case .sqlite:
            expectRefusal({ try context.save() }, key: "decimal", value: "12345678901234567890.123456789")
            #expect(context.hasChanges && sample.decimal == long, "the context keeps its changes")
            // 15 significant digits, whatever the exponent, are kept.
            sample.decimal = Decimal(string: "123456789012345000000")!
            sample.optionalDecimal = Decimal(string: "-0.000000000000000000123456789012345")!
            try context.save()
            let read = try #require(try reread(store))
            #expect(read.decimal == Decimal(string: "123456789012345000000"))
            #expect(read.optionalDecimal == Decimal(string: "-0.000000000000000000123456789012345"))
        }
    }

    // Found by ValueOracleTests (seed 500000): SQLite read 15 digits with an exponent past
    // 127 through `Decimal(string: "-3.56343141e+140")`, which is nil, so the save refused them.
    @Test("A Decimal of at most 15 significant digits is kept whatever its exponent", arguments: StoreKind.allCases)
    func shortDecimalsWithLargeExponents(_ kind: StoreKind) throws {
        let (store, context, sample) = try newSample(kind)
        let large = Decimal(string: "-356343141" + String(repeating: "0", count: 132))!
        let largest = Decimal(string: "340282366920938" + String(repeating: "0", count: 151))!
        sample.decimal = large
        sample.optionalDecimal = largest
        try context.save()
        let read = try #require(try reread(store))
        #expect(read.decimal == large && read.optionalDecimal == largest, "\(read.decimal), \(read.optionalDecimal.map { "\($0)" } ?? "nil")")
    }

    // Before: Decimal.greatestFiniteMagnitude was saved and read back as NaN, with no error.
    @Test("The largest and smallest Decimals are kept exactly on PostgreSQL and refused on SQLite (but 1e-128); NaN on both",
          arguments: StoreKind.allCases)
    func extremeDecimals(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.valueContainer().viewContext
        // The smallest, 1e-128, has one significant digit: SQLite keeps it too.
        let extremes: [Decimal] = [.leastNonzeroMagnitude, .greatestFiniteMagnitude, .leastFiniteMagnitude]
        for (index, value) in extremes.enumerated() {
            let sample = ValueSample(context: context)
            sample.serial = index + 1
            sample.optionalDecimal = value
            switch kind {
            case _ where value == .leastNonzeroMagnitude, .postgres:
                try context.save()
                #expect(try reread(store, serial: index + 1)?.optionalDecimal == value, "\(value)")
            case .sqlite:
                expectRefusal({ try context.save() }, key: "optionalDecimal", value: "\(value)")
                context.delete(sample)
            }
        }
        let sample = ValueSample(context: context)
        sample.serial = 9
        sample.decimal = .nan
        expectRefusal({ try context.save() }, key: "decimal", value: "NaN")
    }

    @Test("A batch update to NaN or to a Decimal the store would change is refused", arguments: StoreKind.allCases)
    func batchUpdateRefuses(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.valueContainer().viewContext
        ValueSample(context: context).serial = 1
        try context.save()
        #expect(throws: BatchRequestError.self) {
            try context.execute(BatchUpdateRequest(ValueSample.self, propertiesToUpdate: ["double": Double.nan]))
        }
        let long = Decimal(string: "1234567890.1234567890123")!
        switch kind {
        case .sqlite:
            #expect(throws: BatchRequestError.self) {
                try context.execute(BatchUpdateRequest(ValueSample.self, propertiesToUpdate: ["decimal": long]))
            }
        case .postgres:
            try context.execute(BatchUpdateRequest(ValueSample.self, propertiesToUpdate: ["decimal": long]))
            #expect(try reread(store)?.decimal == long, "written exactly, not through a double")
        }
        #expect(try reread(store)?.double == 0)
    }

    // Before: "NaN" in imported JSON was accepted and stored as NULL (0.0 read back).
    @Test("JSON import of \"NaN\" for a Double is refused, and nothing is saved", arguments: StoreKind.allCases)
    func importOfNaNIsRefused(_ kind: StoreKind) throws {
        let store = try kind.newStore()
        let context = try store.valueContainer().viewContext
        let json = Data(#"[{"serial": 1, "double": 1.5}, {"serial": 2, "double": "NaN"}]"#.utf8)
        do {
            try context.importJSON(json, entityName: "ValueSample")
            Issue.record("the import went through")
        } catch {
            #expect("\(error)".contains("double") && "\(error)".contains("NaN"), "\(error)")
        }
        #expect(try store.valueContainer().viewContext.count(for: FetchRequest<ValueSample>()) == 0)
    }
}
