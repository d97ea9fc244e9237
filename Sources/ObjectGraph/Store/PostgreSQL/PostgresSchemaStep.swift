import Foundation

/// The steps of creating and opening a store's schema (``PostgresSchema``), named in their
/// errors: a server's refusal during them says which step failed ("creating the schema
/// coredata failed: …"), since the user never wrote the statement.
enum PostgresSchemaStep {
    /// What `sql` does, for an error: "creating the table ZPLAYER", "creating the index
    /// ZPLAYER_ZTEAM_INDEX of the table ZPLAYER", "creating the function og_fold"; nil for a
    /// statement that is no step of its own.
    static func name(of sql: String) -> String? {
        var words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        guard let verb = words.first?.uppercased() else { return nil }
        switch verb {
        case "CREATE":
            words.removeFirst()
            if words.first?.uppercased() == "UNIQUE" { words.removeFirst() }
            guard !words.isEmpty else { return nil }
            let kind = words.removeFirst().lowercased()
            if words.count >= 3, words[0].uppercased() == "IF", words[1].uppercased() == "NOT", words[2].uppercased() == "EXISTS" {
                words.removeFirst(3)
            }
            guard let first = words.first else { return nil }
            let object = String(first.prefix { $0 != "(" })
            var text = "creating the \(kind) \(object)"
            if kind == "index", let on = words.firstIndex(where: { $0.uppercased() == "ON" }), on + 1 < words.count {
                text += " of the table \(words[on + 1])"
            }
            return text
        case "COMMENT":
            return "describing the store's functions (COMMENT)"
        case "INSERT", "UPDATE":
            guard let table = words.dropFirst().first(where: { $0.uppercased() != "INTO" }) else { return nil }
            return "writing the store's metadata (\(table))"
        default:
            return nil
        }
    }

    /// Runs `body`, the step `step`; a ``StoreError`` it throws says which step failed, and
    /// keeps its code and underlying error.
    static func during<T>(_ step: String?, _ body: () throws -> T) throws -> T {
        guard let step else { return try body() }
        do {
            return try body()
        } catch let error as StoreError {
            throw StoreError(error.code, url: error.url, "\(step) failed: \(error.message)", underlying: error.underlying)
        }
    }
}

extension PostgresSession {
    /// Runs `sql`, a step of creating or opening a store's schema; a failure names the step
    /// (``PostgresSchemaStep/name(of:)``).
    @discardableResult
    func executeStep(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        try PostgresSchemaStep.during(PostgresSchemaStep.name(of: sql)) { try execute(sql, parameters) }
    }
}
