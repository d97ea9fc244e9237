import Foundation

// The SQL functions and collations a PostgreSQL store's schema gets when it is created, so
// that SQL compares strings and computes predicate functions as StringComparison and
// PredicateFunction do in memory (as close as PostgreSQL allows; see each function):
//
// - `og_fold(text, options)`: the text folded for `[c]` (ICU's lower-casing) and `[d]`
//   (the `unaccent` extension, or a `translate` table built from Foundation's own folding),
//   in canonical composition (NFC), in code-point order.
// - `og_str(op, options, lhs, rhs)`: StringComparison.evaluate, op and options as its codes.
// - `og_like(pattern)`: Core Data's LIKE pattern (`*`, `?`, `\`) as PostgreSQL's.
// - `og_divide`, `og_mod`, ...: the predicate functions SQL operators do not give exactly,
//   each for bigint (integers stay integers) and double precision.
// - `COLLATE og_localized`: ICU's root collation, numeric, ignoring case and diacritics.
extension PostgresSchema {
    /// Creates the functions in the schema (the search path is the schema) and says how
    /// `[d]` folds.
    func createFunctions(_ session: PostgresSession) throws -> PostgresFunctions {
        var diacritics: String
        var folding = "translate"
        // The extension may be missing or refused (CREATE on the database): then a table.
        // It is one per database, so it goes into a schema of its own (Self.extensionSchema):
        // created inside a store's schema, deleting that store (DROP SCHEMA … CASCADE) would
        // take it from every other store in the database.
        try session.execute("SAVEPOINT og_unaccent")
        do {
            try session.execute("CREATE SCHEMA IF NOT EXISTS \(Self.extensionSchema)")
            try session.execute("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA \(Self.extensionSchema)")
            try session.execute("RELEASE SAVEPOINT og_unaccent")
        } catch let error as StoreError where error.code == .serverError {
            try session.execute("ROLLBACK TO SAVEPOINT og_unaccent")
        }
        if case .text(let namespace)? = try session.scalar("SELECT n.nspname FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'") {
            let quoted = "\"" + namespace.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let dictionary = "'" + (quoted + ".unaccent").replacingOccurrences(of: "'", with: "''") + "'"
            diacritics = "\(quoted).unaccent(\(dictionary)::regdictionary, d)"
            folding = "unaccent"
        } else {
            let table = Self.diacriticTable()
            diacritics = "translate(d, \(Self.literal(table.from)), \(Self.literal(table.to)))"
        }
        do {
            try session.execute("SAVEPOINT og_icu")
            try session.executeStep("CREATE COLLATION og_localized (provider = icu, locale = 'und-u-kn-ks-level1')")
            try session.execute("SELECT lower('A' COLLATE \"und-x-icu\")")
            try session.execute("RELEASE SAVEPOINT og_icu")
        } catch let error as StoreError where ["0A000", "42704"].contains((error.underlying as? DatabaseServerError)?.sqlState ?? "") {
            // Not supported in this build (0A000), or no collation und-x-icu (42704); any other
            // refusal (a privilege) names its step.
            throw StoreError(.cannotOpen, url: url, "the PostgreSQL server was built without ICU collations, which the store needs for case-insensitive and localized comparisons (und-x-icu); use a server built with ICU", underlying: error.underlying)
        }
        for statement in Self.functionStatements(diacritics: diacritics) { try session.executeStep(statement) }
        try session.executeStep("COMMENT ON FUNCTION og_fold(text, integer) IS '\(folding)'")
        return PostgresFunctions(diacriticFolding: folding)
    }

    /// The schema the `unaccent` extension is created in, shared by the database's stores and
    /// never dropped by one of them. (A database where an earlier version created it inside a
    /// store's schema keeps it there.)
    static let extensionSchema = "managedrecord_extensions"

    /// `text` as a SQL string literal.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The letters Foundation folds to one other letter with `.diacriticInsensitive` (Latin,
    /// Greek, Cyrillic), and the combining marks, which it removes.
    static func diacriticTable() -> (from: String, to: String) {
        var from = "", to = ""
        let ranges: [ClosedRange<UInt32>] = [0x00C0...0x024F, 0x0370...0x03FF, 0x0400...0x04FF, 0x1E00...0x1EFF]
        for range in ranges {
            for value in range {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let text = String(Character(scalar))
                let folded = text.folding(options: .diacriticInsensitive, locale: nil)
                guard folded != text, folded.unicodeScalars.count == 1 else { continue }
                from.unicodeScalars.append(scalar)
                to += folded
            }
        }
        var marks = ""
        for value in UInt32(0x0300)...0x036F { if let scalar = Unicode.Scalar(value) { marks.unicodeScalars.append(scalar) } }
        return (from + marks, to)
    }

    static func functionStatements(diacritics: String) -> [String] {
        let numeric: [(name: String, integer: String, double: String)] = [
            ("og_divide", "CASE WHEN b = 0 THEN NULL ELSE a / b END", "CASE WHEN b = 0 THEN NULL ELSE a / b END"),
            ("og_mod", "CASE WHEN b = 0 THEN NULL ELSE a % b END", "CASE WHEN b = 0 THEN NULL ELSE a - b * trunc(a / b) END"),
        ]
        let unary: [(name: String, integer: String, double: String)] = [
            ("og_floor", "a", "floor(a)"), ("og_ceiling", "a", "ceil(a)"), ("og_trunc", "a", "trunc(a)"),
            ("og_abs", "abs(a)", "abs(a)"),
            ("og_sqrt", "CASE WHEN a < 0 THEN NULL ELSE sqrt(a) END", "CASE WHEN a < 0 OR a = 'NaN' THEN NULL ELSE sqrt(a) END"),
            ("og_log", "CASE WHEN a < 0 THEN NULL WHEN a = 0 THEN '-Infinity'::float8 ELSE log(a::float8) END",
             "CASE WHEN a < 0 OR a = 'NaN' THEN NULL WHEN a = 0 THEN '-Infinity'::float8 ELSE log(a) END"),
            ("og_ln", "CASE WHEN a < 0 THEN NULL WHEN a = 0 THEN '-Infinity'::float8 ELSE ln(a::float8) END",
             "CASE WHEN a < 0 OR a = 'NaN' THEN NULL WHEN a = 0 THEN '-Infinity'::float8 ELSE ln(a) END"),
            ("og_exp", "exp(a::float8)", "exp(a)"),
            ("og_bnot", "~a", "~og_bits(a)"),
        ]
        let bitwise: [(name: String, op: String)] = [("og_band", "&"), ("og_bor", "|"), ("og_bxor", "#")]
        var statements = [
            // The 64-bit integer a double stands for: truncated, clamped (PredicateFunction.bits).
            """
            CREATE FUNCTION og_bits(a double precision) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT CASE WHEN a IS NULL THEN NULL WHEN a = 'NaN' THEN 0 WHEN a >= 9223372036854775807 THEN 9223372036854775807
                          WHEN a <= -9223372036854775808 THEN -9223372036854775808 ELSE trunc(a)::bigint END
            $$
            """,
            """
            CREATE FUNCTION og_fold(x text, opts integer) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT CASE WHEN x IS NULL THEN NULL WHEN opts = 0 THEN x COLLATE "C" ELSE
                (SELECT normalize(CASE WHEN opts & 1 <> 0 THEN lower(f COLLATE "und-x-icu") ELSE f END, NFC) COLLATE "C"
                 FROM (SELECT CASE WHEN opts & 2 <> 0 THEN \(diacritics) ELSE d END AS f
                       FROM (SELECT normalize(x, NFC) AS d) AS n) AS g)
              END
            $$
            """,
            """
            CREATE FUNCTION og_like(p text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
            DECLARE r text := ''; i integer := 1; c text; n integer := length(p);
            BEGIN
              WHILE i <= n LOOP
                c := substr(p, i, 1);
                IF c = '*' THEN r := r || '%';
                ELSIF c = '?' THEN r := r || '_';
                ELSIF c = '%' OR c = '_' THEN r := r || E'\\\\' || c;
                ELSIF c = E'\\\\' THEN
                  IF i < n THEN i := i + 1; r := r || E'\\\\' || substr(p, i, 1); ELSE r := r || E'\\\\\\\\'; END IF;
                ELSE r := r || c;
                END IF;
                i := i + 1;
              END LOOP;
              RETURN r;
            END
            $$
            """,
            """
            CREATE FUNCTION og_str(op integer, opts integer, a text, b text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
            DECLARE x text COLLATE "C"; y text COLLATE "C";
            BEGIN
              IF a IS NULL OR b IS NULL THEN
                IF op IN (0, 3, 5) THEN RETURN a IS NULL AND b IS NULL; END IF;
                IF op = 1 THEN RETURN NOT (a IS NULL AND b IS NULL); END IF;
                RETURN false;
              END IF;
              x := og_fold(a, opts);
              IF op = 10 THEN
                BEGIN
                  IF opts & 1 <> 0 THEN RETURN x ~* ('^(?:' || b || ')$'); END IF;
                  RETURN x ~ ('^(?:' || b || ')$');
                EXCEPTION WHEN invalid_regular_expression THEN RETURN false;
                END;
              END IF;
              y := og_fold(b, opts);
              CASE op
                WHEN 0 THEN RETURN x = y;
                WHEN 1 THEN RETURN x <> y;
                WHEN 2 THEN RETURN x < y;
                WHEN 3 THEN RETURN x <= y;
                WHEN 4 THEN RETURN x > y;
                WHEN 5 THEN RETURN x >= y;
                WHEN 6 THEN RETURN y <> '' AND left(x, length(y)) = y;
                WHEN 7 THEN RETURN y <> '' AND right(x, length(y)) = y;
                WHEN 8 THEN RETURN y <> '' AND strpos(x, y) > 0;
                WHEN 9 THEN RETURN x LIKE og_like(y);
                ELSE RETURN false;
              END CASE;
            END
            $$
            """,
            // NSString's length: UTF-16 code units.
            """
            CREATE FUNCTION og_length(a text) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
              SELECT length(a) + length(regexp_replace(a, '[\\u0001-\\uffff]', '', 'g'))
            $$
            """,
            "CREATE FUNCTION og_lower(a text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower(a COLLATE \"und-x-icu\") COLLATE \"C\" $$",
            "CREATE FUNCTION og_upper(a text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT upper(a COLLATE \"und-x-icu\") COLLATE \"C\" $$",
            """
            CREATE FUNCTION og_power(a double precision, b double precision) RETURNS double precision LANGUAGE plpgsql IMMUTABLE AS $$
            BEGIN
              RETURN power(a, b);
            EXCEPTION WHEN others THEN RETURN NULL;
            END
            $$
            """,
            "CREATE FUNCTION og_shl(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN b >= 64 OR b <= -64 THEN CASE WHEN b > 0 OR a >= 0 THEN 0 ELSE -1 END WHEN b >= 0 THEN a << b::integer ELSE a >> (-b)::integer END $$",
            "CREATE FUNCTION og_shr(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN b >= 64 OR b <= -64 THEN CASE WHEN b < 0 OR a >= 0 THEN 0 ELSE -1 END WHEN b >= 0 THEN a >> b::integer ELSE a << (-b)::integer END $$",
            "CREATE FUNCTION og_shl(a double precision, b double precision) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT og_shl(og_bits(a), og_bits(b)) $$",
            "CREATE FUNCTION og_shr(a double precision, b double precision) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT og_shr(og_bits(a), og_bits(b)) $$",
        ]
        for function in numeric {
            statements.append("CREATE FUNCTION \(function.name)(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT \(function.integer) $$")
            statements.append("CREATE FUNCTION \(function.name)(a double precision, b double precision) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT \(function.double) $$")
        }
        for function in unary {
            let integerResult = ["og_floor", "og_ceiling", "og_trunc", "og_abs", "og_bnot"].contains(function.name) ? "bigint" : "double precision"
            let doubleResult = function.name == "og_bnot" ? "bigint" : "double precision"
            statements.append("CREATE FUNCTION \(function.name)(a bigint) RETURNS \(integerResult) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT \(function.integer) $$")
            statements.append("CREATE FUNCTION \(function.name)(a double precision) RETURNS \(doubleResult) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT \(function.double) $$")
        }
        for function in bitwise {
            statements.append("CREATE FUNCTION \(function.name)(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT a \(function.op) b $$")
            statements.append("CREATE FUNCTION \(function.name)(a double precision, b double precision) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT og_bits(a) \(function.op) og_bits(b) $$")
        }
        return statements
    }
}
