/// A predicate that cannot be parsed, bound to an entity or run: a malformed format string
/// (with the character position and what was expected), a key the entity does not have, a
/// value of the wrong type for a key, a missing argument or variable.
///
/// Every one of these is found before any SQL reaches SQLite.
///
/// Named `FetchPredicateError` because Foundation already exports a `PredicateError` (for its
/// `#Predicate` macro); the name `PredicateError` works too in files that do not import
/// Foundation.
///
/// For example:
///
/// ```swift
/// do {
///     _ = try FetchPredicate("age > 3 AND (name == 'x'")
/// } catch let error as FetchPredicateError {
///     print(error)   // Predicate error (syntax): expected ')' at 24 (end of input) in "age > 3 AND (name == 'x'"
/// }
/// ```
public struct FetchPredicateError: Error, CustomStringConvertible, Sendable {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The format string is malformed.
        public static let syntax = Code(name: "syntax")
        /// A format specifier has no argument, or an argument has no specifier.
        public static let argument = Code(name: "argument")
        /// A `$NAME` variable has no value.
        public static let variable = Code(name: "variable")
        /// A key path names a property the entity does not have.
        public static let unknownKey = Code(name: "unknownKey")
        /// A value or key of one type is compared with a key of another.
        public static let typeMismatch = Code(name: "typeMismatch")
        /// A valid construct that this store cannot answer (a transient attribute, two
        /// to-many steps in one key path, ...).
        public static let unsupported = Code(name: "unsupported")
        public var description: String { name }
    }

    public let code: Code
    /// The character offset (0-based) in ``format`` where the problem is, for syntax errors.
    public let position: Int?
    /// The format string, when the predicate came from one.
    public let format: String?
    /// The entity the predicate was bound to, for key and type errors.
    public let entity: String?
    /// The key path concerned, for key and type errors.
    public let key: String?
    /// What is wrong and what was expected.
    public let message: String

    init(_ code: Code, _ message: String, position: Int? = nil, format: String? = nil, entity: String? = nil, key: String? = nil) {
        self.code = code
        self.message = message
        self.position = position
        self.format = format
        self.entity = entity
        self.key = key
    }

    public var description: String { "Predicate error (\(code)): \(message)" }

    static func syntax(_ expected: String, at position: Int, in format: String) -> FetchPredicateError {
        let place = position >= format.count ? "\(position) (end of input)" : "\(position)"
        return FetchPredicateError(.syntax, "expected \(expected) at \(place) in \"\(format)\"", position: position, format: format)
    }

    static func unknownKey(_ key: String, path: String, entity: EntityDescription) -> FetchPredicateError {
        let known = entity.properties.map(\.name).joined(separator: ", ")
        return FetchPredicateError(.unknownKey, "\(entity.name) has no property named '\(key)' (in key path '\(path)'; it has: \(known))",
                              entity: entity.name, key: path)
    }
}

/// The same type as ``FetchPredicateError``, for files that do not import Foundation (whose
/// own `PredicateError` makes the name ambiguous where both are imported).
public typealias PredicateError = FetchPredicateError
