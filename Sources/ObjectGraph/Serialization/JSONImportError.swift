import Foundation

/// An import that met bad input, naming the record (its index in the input) and the key.
///
/// Nothing of the failing transaction is kept: an import in one transaction leaves the
/// store and every context as they were; an import in batches keeps the batches committed
/// before the failure, which ``report`` lists.
public struct JSONImportError: Error, CustomStringConvertible {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The data is not JSON, or not an array of objects (or one object).
        public static let malformedJSON = Code(name: "malformedJSON")
        /// A record (or a nested record) is not a JSON object.
        public static let notAnObject = Code(name: "notAnObject")
        /// The entity, or a record's `entity` value, names no (sub-)entity of the model.
        public static let unknownEntity = Code(name: "unknownEntity")
        /// A key names no property (strict imports only).
        public static let unknownKey = Code(name: "unknownKey")
        /// A value is not of the attribute's or relationship's type.
        public static let wrongType = Code(name: "wrongType")
        /// A required attribute or to-one is null or missing for a new object.
        public static let missingRequiredValue = Code(name: "missingRequiredValue")
        /// A relationship names an object by key or URI that neither the store nor the
        /// import holds, or its entity has no related-by attribute to look it up by.
        public static let unknownReference = Code(name: "unknownReference")
        /// The save of a batch (or of the whole import) failed: see ``underlyingError``.
        public static let saveFailed = Code(name: "saveFailed")
        /// Reading the store to find the records' objects failed: see ``underlyingError``.
        public static let storeFailed = Code(name: "storeFailed")
        public var description: String { name }
    }

    /// What kind of problem it is.
    public let code: Code
    /// The index of the record in the input, when one is at fault.
    public let index: Int?
    /// The key path inside the record (`department.name`, `reports[2].age`).
    public let key: String?
    /// The entity whose record is at fault.
    public let entity: String?
    /// What is wrong and what to do, naming the entity, the key and the types.
    public let message: String
    /// The error of a failed save or store lookup.
    public let underlyingError: (any Error)?
    /// What the committed batches did (empty for an import in one transaction).
    public internal(set) var report = JSONImportReport()

    init(_ code: Code, index: Int? = nil, key: String? = nil, entity: String? = nil, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.index = index
        self.key = key
        self.entity = entity
        self.message = message
        self.underlyingError = underlying
    }

    public var description: String {
        var place = ""
        if let index { place += " record \(index)" }
        if let key { place += place.isEmpty ? " key '\(key)'" : ", key '\(key)'" }
        var text = "JSON import error (\(code))\(place.isEmpty ? "" : " at" + place): \(message)"
        if report.committedBatches > 0 {
            text += ". \(report.committedBatches) earlier batches (\(report.committedRecords) records) were committed and stay; the failing batch was rolled back"
        } else {
            text += ". Nothing was imported"
        }
        return text
    }
}
