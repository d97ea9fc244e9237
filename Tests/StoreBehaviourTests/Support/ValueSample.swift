import Foundation
import ObjectGraph

/// One attribute of every numeric type (plain and optional), a date and a string: the
/// entity of the value tests (UnstorableValueTests) and the value oracle (ValueOracleTests).
final class ValueSample: ManagedObject {
    @Attribute var serial: Int = 0
    @Attribute var int16: Int16 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int64: Int64 = 0
    @Attribute var double: Double = 0
    @Attribute var float: Float = 0
    @Attribute var decimal: Decimal = 0
    @Attribute var optionalDouble: Double? = nil
    @Attribute var optionalFloat: Float? = nil
    @Attribute var optionalDecimal: Decimal? = nil
    @Attribute var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    @Attribute var text: String = ""

    static let containerName = "ValueSamples"
}

extension TestStore {
    /// A new container of ``ValueSample`` on this store.
    func valueContainer() throws -> PersistentContainer {
        try container([ValueSample.self], name: ValueSample.containerName)
    }
}
