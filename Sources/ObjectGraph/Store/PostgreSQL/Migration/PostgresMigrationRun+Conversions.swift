import Foundation

/// Value conversions in a PostgreSQL migration: the rules of ``MigrationValueConverter``
/// (which a SQLite migration calls from SQL) as PL/pgSQL functions of the migration's
/// session, `og_migrate_text` and `og_migrate_bytea` (a Decimal through `numeric`, exactly,
/// where SQLite's converter keeps a REAL). Each reads its attribute's type and
/// whether it is required from the temporary table `og_migrate_targets` (the converter's
/// targets, by index); a value that does not convert, or a missing required value, raises
/// `og_migrate|<code>|<target>|<key>|<value>`, which becomes the same ``MigrationError`` as
/// on SQLite.
extension PostgresMigrationRun {
    /// Creates the functions and fills their targets table, for `converter`'s targets.
    func installConversions(_ converter: MigrationValueConverter) throws {
        guard !converter.targets.isEmpty else { return }
        try session.execute("CREATE TEMP TABLE IF NOT EXISTS og_migrate_targets (target integer PRIMARY KEY, type text, required boolean) ON COMMIT DROP")
        try session.execute("DELETE FROM pg_temp.og_migrate_targets")
        for (index, target) in converter.targets.enumerated() {
            try session.execute("INSERT INTO pg_temp.og_migrate_targets (target, type, required) VALUES (?, ?, ? = 1)",
                                [.integer(Int64(index)), .text(target.type.rawValue), .integer(target.isRequired ? 1 : 0)])
        }
        for statement in Self.conversionStatements { try session.execute(statement) }
    }

    /// The conversion functions (in the session's temporary schema).
    static let conversionStatements = [
        """
        CREATE OR REPLACE FUNCTION pg_temp.og_migrate_text(v text, k bigint, n integer) RETURNS text LANGUAGE plpgsql AS $f$
        DECLARE
          t text; req boolean; s text; d double precision; x numeric; m numeric; r text;
        BEGIN
          SELECT type, required INTO t, req FROM pg_temp.og_migrate_targets WHERE target = n;
          IF v IS NULL THEN
            r := NULL;
          ELSIF t IN ('String', 'URI') THEN
            r := v;
          ELSE
            s := btrim(v, E' \\t');
            IF s = '' THEN
              r := NULL;
            ELSIF t = 'Boolean' AND lower(s) IN ('yes', 'true') THEN
              r := '1';
            ELSIF t = 'Boolean' AND lower(s) IN ('no', 'false') THEN
              r := '0';
            ELSIF t LIKE 'Integer%' AND s ~ '^[+-]?[0-9]+$' THEN
              x := s::numeric;
            ELSIF t = 'Decimal' THEN
              -- Exact, through numeric: a Decimal holds 38 significant digits, none below
              -- 1e-128, up to its greatest finite magnitude; NaN and infinities are refused.
              BEGIN
                m := s::numeric;
              EXCEPTION WHEN others THEN
                RAISE EXCEPTION 'og_migrate|unconvertibleValue|%|%|%', n, k, v;
              END;
              r := m::text;
              IF r IN ('NaN', 'Infinity', '-Infinity')
                 OR length(btrim(regexp_replace(r, '[^0-9]', '', 'g'), '0')) > 38
                 OR length(rtrim(split_part(r, '.', 2), '0')) > 128
                 OR abs(m) > \(Decimal.greatestFiniteMagnitude) THEN
                RAISE EXCEPTION 'og_migrate|unconvertibleValue|%|%|%', n, k, v;
              END IF;
            ELSE
              BEGIN
                d := s::double precision;
              EXCEPTION WHEN others THEN
                RAISE EXCEPTION 'og_migrate|unconvertibleValue|%|%|%', n, k, v;
              END;
              IF d IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) AND NOT (t = 'Boolean' AND d <> 'NaN'::float8) THEN
                RAISE EXCEPTION 'og_migrate|unconvertibleValue|%|%|%', n, k, v;
              ELSIF t = 'Boolean' THEN
                r := CASE WHEN d <> 0 THEN '1' ELSE '0' END;
              ELSIF t LIKE 'Integer%' THEN
                x := trunc(d::numeric);
              ELSE
                r := d::text;
              END IF;
            END IF;
            IF x IS NOT NULL THEN
              IF (t = 'Integer 16' AND (x < -32768 OR x > 32767))
                 OR (t = 'Integer 32' AND (x < -2147483648 OR x > 2147483647))
                 OR (x < -9223372036854775808 OR x > 9223372036854775807) THEN
                RAISE EXCEPTION 'og_migrate|unconvertibleValue|%|%|%', n, k, v;
              END IF;
              r := x::text;
            END IF;
          END IF;
          IF r IS NULL AND req THEN
            RAISE EXCEPTION 'og_migrate|missingValue|%|%|NULL', n, k;
          END IF;
          RETURN r;
        END
        $f$
        """,
        """
        CREATE OR REPLACE FUNCTION pg_temp.og_migrate_bytea(v bytea, k bigint, n integer) RETURNS bytea LANGUAGE plpgsql AS $f$
        DECLARE
          t text; req boolean;
        BEGIN
          SELECT type, required INTO t, req FROM pg_temp.og_migrate_targets WHERE target = n;
          IF v IS NOT NULL AND t = 'UUID' AND length(v) <> 16 THEN
            RAISE EXCEPTION 'og_migrate|unconvertibleValue|%|%|% bytes of data', n, k, length(v);
          END IF;
          IF v IS NULL AND req THEN
            RAISE EXCEPTION 'og_migrate|missingValue|%|%|NULL', n, k;
          END IF;
          RETURN v;
        END
        $f$
        """,
    ]

    /// A refusal raised by the conversion functions, read from the server's message.
    static func conversionRefusal(_ message: String) -> (code: MigrationError.Code, target: Int, key: Int64, value: String)? {
        let parts = message.split(separator: "|", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[0] == "og_migrate", let target = Int(parts[2]), let key = Int64(parts[3]) else { return nil }
        let code: MigrationError.Code = parts[1] == "missingValue" ? .missingValue : .unconvertibleValue
        // Described as a SQLite migration describes it: numbers bare, text quoted.
        let value = parts[4]
        let described = Int64(value) != nil || Double(value) != nil || value.hasSuffix(" bytes of data") || code == .missingValue
            ? value : MigrationValueConverter.describe(.text(value))
        return (code, target, key, described)
    }
}
