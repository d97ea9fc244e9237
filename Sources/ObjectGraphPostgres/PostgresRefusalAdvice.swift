import Foundation

/// What to do about an error the server sent for a statement, by its SQLSTATE code: a hint of
/// its own for each code of class 42 (syntax errors and access rules) and the codes a store
/// meets, written for someone who may never have written the statement (the store writes
/// most of them), never "fix the statement" alone.
struct PostgresRefusalAdvice {
    let sqlState: String
    /// The server's message (`permission denied for table zplayer`).
    let message: String
    /// The role the connection logged in as.
    let role: String
    /// The statement that failed, when known (for the privilege it needed).
    let statement: String?
    /// The schema the session's statements run in, when it set one (`SET search_path TO s`).
    let searchPath: String?

    /// PostgreSQL's condition name of `sqlState` (its manual's Appendix A), for the codes the
    /// driver advises on; nil for others.
    static func conditionName(_ sqlState: String) -> String? { conditionNames[sqlState] }

    private static let conditionNames: [String: String] = [
        "22003": "numeric_value_out_of_range", "22021": "character_not_in_repertoire", "22P02": "invalid_text_representation",
        "23502": "not_null_violation", "23503": "foreign_key_violation", "23505": "unique_violation", "23514": "check_violation",
        "25P02": "in_failed_sql_transaction", "40001": "serialization_failure", "40P01": "deadlock_detected",
        "42501": "insufficient_privilege", "42601": "syntax_error", "42602": "invalid_name", "42622": "name_too_long",
        "42702": "ambiguous_column", "42703": "undefined_column", "42704": "undefined_object", "42710": "duplicate_object",
        "42723": "duplicate_function", "42725": "ambiguous_function", "42803": "grouping_error", "42804": "datatype_mismatch",
        "42809": "wrong_object_type", "42846": "cannot_coerce", "42883": "undefined_function", "42939": "reserved_name",
        "42P01": "undefined_table", "42P02": "undefined_parameter", "42P06": "duplicate_schema", "42P07": "duplicate_table",
        "42P18": "indeterminate_datatype", "53100": "disk_full", "53200": "out_of_memory", "53300": "too_many_connections",
    ]

    /// What to do.
    var text: String {
        switch sqlState {
        case "40001", "40P01":
            return "Another transaction conflicted with this one; run the transaction again."
        case "25P02":
            return "An earlier statement of this transaction failed; roll the transaction back."
        case "42501":
            return privilegeAdvice
        case "42601":
            return "PostgreSQL cannot parse the statement. If ManagedRecord wrote it (a fetch, a save, opening a store), the server may be older than PostgreSQL 13, which the store needs; otherwise report it with this message. A statement of your own: check its syntax near the place the message names."
        case "42P01":
            return "There is no such table (or view) in the schemas of the search path. If it is a table of a store, another program dropped or renamed it, or deleted the store's schema (destroyStore() in another process): a deleted schema is created anew when the container opens again; a single missing table must be restored from a backup."
        case "42703":
            return "There is no such column in that table. If it is a table of a store, the table was altered by another program, or the schema was written with another model: open it with the model it was written with, or let the store migrate it."
        case "42883", "42725":
            return "There is no function of that name taking those argument types (or several fit). If it is a function of a store (og_…), the store's schema was changed by another program: open the container again in a new schema, or restore it; a function of an extension needs that extension in the database."
        case "42704":
            return "An object the statement names (a type, collation, extension or role) does not exist in this database; create it, or install what provides it (a collation of ICU needs a server built with ICU)."
        case "42P06", "42P07", "42710", "42723":
            return "An object of that name already exists in the schema. If the schema holds a store, another program created it there: give the store a schema of its own (?schema=name), or drop that object."
        case "42804", "42846", "42P18":
            return "A value or column has another type than the statement needs. If it is a column of a store, the table was altered by another program: open the store with the model that wrote it."
        case "42602", "42622", "42939":
            return "A name is not valid in PostgreSQL (too long, reserved, or malformed); choose another name."
        case let state where state.hasPrefix("42"):
            return "The statement does not fit the database's schema (a table, column or function differs from what the statement expects) or PostgreSQL's rules for a statement."
        case let state where state.hasPrefix("23"):
            return "The data breaks a constraint of the table; change the values."
        case let state where state.hasPrefix("53"):
            return "The server is short of a resource (disk, memory, connections); free some on the server."
        default:
            return "Check the statement and the data it uses."
        }
    }

    /// 42501: the role, the object (as the message names it), and what to grant.
    private var privilegeAdvice: String {
        var text = "The role \"\(role)\" lacks a privilege"
        let prefix = "permission denied for "
        guard message.hasPrefix(prefix) else {
            return text + " the statement needs (\(message)). Run it as a role that has it (the object's owner or a superuser), or have such a role grant it."
        }
        let words = message.dropFirst(prefix.count).split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2 else { return text + " on \(message.dropFirst(prefix.count)). Have its owner or a superuser grant it." }
        let (kind, object) = (words[0], words[1])
        text += " on the \(kind) \(object)"
        let creates = statement.map { $0.uppercased().hasPrefix("CREATE") } ?? false
        let grant: String
        switch kind {
        case "database":
            grant = creates ? "GRANT CREATE ON DATABASE \(object) TO \(role)" : "GRANT CONNECT, TEMPORARY ON DATABASE \(object) TO \(role)"
            if creates { text += ": it may not create schemas there (a new store creates its own schema, coredata unless ?schema= names another)" }
        case "schema":
            grant = creates ? "GRANT USAGE, CREATE ON SCHEMA \(object) TO \(role)" : "GRANT USAGE ON SCHEMA \(object) TO \(role)"
        case "table", "relation", "view":
            if let schema = searchPath {
                grant = "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(schema) TO \(role)"
                text += " (a store's role reads and writes every table of its schema)"
            } else {
                grant = "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE \(object) TO \(role)"
            }
        case "sequence":
            grant = "GRANT USAGE, SELECT ON SEQUENCE \(object) TO \(role)"
        case "function":
            grant = "GRANT EXECUTE ON FUNCTION \(object) TO \(role)"
        default:
            grant = "GRANT … ON \(kind.uppercased()) \(object) TO \(role)"
        }
        return text + ". Have its owner or a superuser run \(grant), or connect as a role that has it."
    }
}
