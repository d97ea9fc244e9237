/// A save refused because objects are not valid: every problem found, reported together, as
/// Core Data's `NSValidationMultipleErrorsError` (1560) carries its `NSDetailedErrorsKey`.
/// The store and the context's pending changes are as they were before the save.
public struct ValidationError: Error, CustomStringConvertible, Sendable {
    /// Which built-in rule a problem breaks, with Core Data's error code for the same rule.
    public struct Rule: Hashable, Sendable, CustomStringConvertible {
        /// The rule's name (`numberTooSmall`).
        public let name: String
        /// Core Data's `NSCocoaErrorDomain` code for the same refusal
        /// (`NSValidationNumberTooSmallError` is 1620), nil where Core Data has none.
        public let coreDataCode: Int?

        init(_ name: String, _ coreDataCode: Int?) {
            self.name = name
            self.coreDataCode = coreDataCode
        }

        /// A non-optional property is nil (`NSValidationMissingMandatoryPropertyError`).
        public static let missingMandatoryProperty = Rule("missingMandatoryProperty", 1570)
        /// A to-many relationship holds fewer objects than its minimum count.
        public static let relationshipLacksMinimumCount = Rule("relationshipLacksMinimumCount", 1580)
        /// A to-many relationship holds more objects than its maximum count.
        public static let relationshipExceedsMaximumCount = Rule("relationshipExceedsMaximumCount", 1590)
        /// An object is deleted while a Deny relationship still holds objects.
        public static let relationshipDeniedDelete = Rule("relationshipDeniedDelete", 1600)
        /// A number is greater than the attribute's maximum.
        public static let numberTooLarge = Rule("numberTooLarge", 1610)
        /// A number is less than the attribute's minimum.
        public static let numberTooSmall = Rule("numberTooSmall", 1620)
        /// A date is after the attribute's maximum.
        public static let dateTooLate = Rule("dateTooLate", 1630)
        /// A date is before the attribute's minimum.
        public static let dateTooSoon = Rule("dateTooSoon", 1640)
        /// A string (or binary value) is longer than the attribute's maximum length.
        public static let stringTooLong = Rule("stringTooLong", 1660)
        /// A string (or binary value) is shorter than the attribute's minimum length.
        public static let stringTooShort = Rule("stringTooShort", 1670)
        /// A string does not match the attribute's regular expression as a whole.
        public static let stringPatternMatching = Rule("stringPatternMatching", 1680)
        /// An object of an abstract entity was inserted (Core Data refuses it when it is
        /// created; here `init(context:)` cannot throw, so the save refuses it).
        public static let abstractEntity = Rule("abstractEntity", nil)

        public var description: String {
            coreDataCode.map { "\(name) (\($0))" } ?? name
        }
    }

    /// One problem with one object.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        /// The object concerned.
        public let objectID: ObjectID?
        /// Its entity.
        public let entity: String
        /// The property concerned, if one.
        public let key: String?
        public let message: String
        /// The built-in rule broken; nil for a problem a `validateFor...` hook threw, and for
        /// the checks of what a store can hold.
        public let rule: Rule?
        /// The refused value as the message shows it (Core Data's `NSValidationErrorValue`),
        /// where there is one.
        public let value: String?

        /// A problem to throw from `validateForInsert()`, `validateForUpdate()` or
        /// `validateForDelete()`.
        public init(_ object: ManagedObject, key: String? = nil, _ message: String) {
            self.init(object, key: key, message, rule: nil, value: nil)
        }

        init(_ object: ManagedObject, key: String? = nil, _ message: String, rule: Rule?, value: String? = nil) {
            self.objectID = object.objectID
            self.entity = object.entity.name
            self.key = key
            self.message = message
            self.rule = rule
            self.value = value
        }

        public var description: String {
            "\(entity)\(key.map { ".\($0)" } ?? "") (\(objectID.map { "\($0)" } ?? "?")): \(message)"
        }
    }

    /// Every problem found.
    public let problems: [Problem]

    /// Several problems at once, to throw from a `validateFor...` override that finds more
    /// than one (the save reports them all, with every other object's).
    public init(problems: [Problem]) {
        self.problems = problems
    }

    public var description: String {
        "Validation failed with \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n" +
            problems.map { "- \($0)" }.joined(separator: "\n")
    }
}
