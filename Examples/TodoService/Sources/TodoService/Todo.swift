import Foundation
import ManagedRecord

/// One item of the to-do list: the service's only entity.
///
/// The model's own rules hold the invariants, so every way in (the REST API, a script, the
/// `managedrecord` tool) meets them at `save()`: a title of 1 to 200 characters that is not
/// only spaces, unique in the store; an `order` from 0 to 1 000 000. `identifier` is the
/// public ID (`/todos/<identifier>`), unique too; `revision` counts the changes a client
/// has seen, for optimistic concurrency over HTTP (`PATCH` with `"revision"`).
public final class Todo: ManagedObject {
    /// The ID clients use in URLs; never changes.
    @Attribute public var identifier: UUID = UUID()
    /// What to do. Unique: two items with the same title are refused with 409.
    @Attribute(.length(1...200)) public var title: String = ""
    /// Whether it is done.
    @Attribute public var completed: Bool = false
    /// The position the client gives it in its list (sortable with `?sort=order`).
    @Attribute(.range(0...1_000_000)) public var order: Int = 0
    /// When it was created (set once, at insertion).
    @Attribute public var createdAt: Date = Date()
    /// 1 when created, one more at every change made through the API.
    @Attribute public var revision: Int = 1

    /// The identifier and the title are each unique: a uniqueness conflict is a 409.
    override public class var uniquenessConstraints: [[String]] { [["identifier"], ["title"]] }

    override public func validateForInsert() throws {
        try super.validateForInsert()
        try validateTitle()
    }

    override public func validateForUpdate() throws {
        try super.validateForUpdate()
        try validateTitle()
    }

    /// The length rule counts spaces; a title of spaces alone says nothing. Control
    /// characters (U+0000 among them, which PostgreSQL's text refuses) are refused on every
    /// store alike, as bad input, before the store sees them.
    private func validateTitle() throws {
        if !title.isEmpty, title.allSatisfy(\.isWhitespace) {
            throw ValidationError.Problem(self, key: "title", "title is only white space; give the item a title")
        }
        if title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError.Problem(self, key: "title", "title contains a control character (a line break, a tab, U+0000...); use one line of text")
        }
    }
}
