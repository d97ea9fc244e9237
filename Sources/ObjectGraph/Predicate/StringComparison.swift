import Foundation

/// The meaning of string comparisons, shared by the in-memory evaluator and the SQLite
/// function `og_str` that SQL uses for `[c]`, `[d]`, `LIKE` and `MATCHES`: one implementation,
/// so both back ends agree for all of Unicode.
///
/// Without options strings compare by Unicode scalars (what SQLite's `BINARY` collation does
/// with UTF-8). With `[c]`/`[d]` both sides are folded with
/// `folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)` (as asked) and
/// brought to canonical composition first, so `"É" ==[cd] "e"`.
enum StringComparison {
    /// Operator codes passed to `og_str`.
    enum Code: Int32 {
        case equal = 0, notEqual, less, lessOrEqual, greater, greaterOrEqual, beginsWith, endsWith, contains, like, matches

        init?(_ op: PredicateOperator) {
            switch op {
            case .equal: self = .equal
            case .notEqual: self = .notEqual
            case .less: self = .less
            case .lessOrEqual: self = .lessOrEqual
            case .greater: self = .greater
            case .greaterOrEqual: self = .greaterOrEqual
            case .beginsWith: self = .beginsWith
            case .endsWith: self = .endsWith
            case .contains: self = .contains
            case .like: self = .like
            case .matches: self = .matches
            case .in, .between: return nil
            }
        }
    }

    /// Whether `lhs op rhs` holds. nil stands for NULL: equal only to nil; two nils are
    /// `<=` and `>=` each other (as in Foundation), and nil is never `<` or `>` anything.
    ///
    /// An empty search string is never found: `'abc' BEGINSWITH ''`, `ENDSWITH ''` and
    /// `CONTAINS ''` are false, as Foundation's `hasPrefix(_:)`, `hasSuffix(_:)` and
    /// `range(of:)` answer for an empty string.
    static func evaluate(_ code: Code, _ options: StringOptions, _ lhs: String?, _ rhs: String?) -> Bool {
        guard let lhs, let rhs else {
            switch code {
            case .equal, .lessOrEqual, .greaterOrEqual: return lhs == nil && rhs == nil
            case .notEqual: return !(lhs == nil && rhs == nil)
            default: return false
            }
        }
        if code == .matches { return matches(fold(lhs, options), pattern: rhs, options) }
        let a = Array(fold(lhs, options).unicodeScalars)
        let b = Array(fold(rhs, options).unicodeScalars)
        switch code {
        case .equal: return a == b
        case .notEqual: return a != b
        case .less: return a.lexicographicallyPrecedes(b)
        case .lessOrEqual: return !b.lexicographicallyPrecedes(a)
        case .greater: return b.lexicographicallyPrecedes(a)
        case .greaterOrEqual: return !a.lexicographicallyPrecedes(b)
        case .beginsWith: return !b.isEmpty && a.starts(with: b)
        case .endsWith: return !b.isEmpty && a.count >= b.count && a[(a.count - b.count)...].elementsEqual(b)
        case .contains: return !b.isEmpty && contains(a, b)
        case .like: return like(a[...], b[...])
        case .matches: return false
        }
    }

    /// `text` folded for `options`, in canonical composition (unchanged without options).
    static func fold(_ text: String, _ options: StringOptions) -> String {
        guard !options.isEmpty else { return text }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return text.folding(options: folding, locale: nil).precomposedStringWithCanonicalMapping
    }

    private static func contains(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Bool {
        guard a.count >= b.count else { return false }
        for start in 0...(a.count - b.count) where a[start] == b[0] {
            if a[start..<(start + b.count)].elementsEqual(b) { return true }
        }
        return false
    }

    /// Core Data's `LIKE`: `*` matches any run, `?` one character, `\` escapes.
    private static func like(_ text: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Unicode.Scalar>) -> Bool {
        var t = text.startIndex, p = pattern.startIndex
        var starP: Int?, starT = t
        while t < text.endIndex {
            if p < pattern.endIndex {
                let c = pattern[p]
                if c == "*" { starP = p; starT = t; p += 1; continue }
                if c == "?" { t += 1; p += 1; continue }
                var literal = c
                var width = 1
                if c == "\\", p + 1 < pattern.endIndex { literal = pattern[p + 1]; width = 2 }
                if literal == text[t] { t += 1; p += width; continue }
            }
            guard let star = starP else { return false }
            p = star + 1
            starT += 1
            t = starT
        }
        while p < pattern.endIndex, pattern[p] == "*" { p += 1 }
        return p == pattern.endIndex
    }

    private static let regexCache = RegexCache()

    /// `MATCHES`: the whole string matches the regular expression, with ICU's syntax and the
    /// meaning of ICU's `uregex_matches` with `UREGEX_DOTALL` (what GNUstep's NSPredicate
    /// calls): `.` matches a newline too, `^` and `$` anchor at the ends of the whole text
    /// (`$` also before a final newline, but the match must still reach the end). A pattern
    /// that does not compile matches nothing (a constant one is refused when binding).
    private static func matches(_ text: String, pattern: String, _ options: StringOptions) -> Bool {
        guard let regex = regexCache.regex(pattern, caseInsensitive: options.contains(.caseInsensitive)) else { return false }
        let range = NSRange(text.startIndex..., in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range) != nil
    }

    /// Whether `pattern` compiles as an ICU regular expression.
    static func isValidPattern(_ pattern: String) -> Bool {
        regexCache.regex(pattern, caseInsensitive: false) != nil
    }
}

/// Compiled regular expressions by pattern, shared by every thread.
private final class RegexCache: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var cache: [String: NSRegularExpression?] = [:]

    func regex(_ pattern: String, caseInsensitive: Bool) -> NSRegularExpression? {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        return lock.withLock {
            if let cached = cache[key] { return cached }
            // \A(?:...)\z: the whole text, by backtracking if need be; the pattern alone must
            // compile too, so a stray ')' cannot close the group.
            var options: NSRegularExpression.Options = [.dotMatchesLineSeparators]
            if caseInsensitive { options.insert(.caseInsensitive) }
            let regex = (try? NSRegularExpression(pattern: pattern, options: options)) == nil
                ? nil : try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
            return regex
        }
    }
}

/// The text order of sort keys, shared by SQL collations and in-memory sorting.
enum TextOrder {
    /// Case-insensitive (for all of Unicode), ties broken by scalars so the order is total.
    static func caseInsensitive(_ a: String, _ b: String) -> ComparisonResult {
        let (x, y) = (StringComparison.fold(a, .caseInsensitive), StringComparison.fold(b, .caseInsensitive))
        return scalars(x, y)
    }

    /// Finder-like order: case- and diacritic-insensitive, digits compared as numbers.
    static func localizedStandard(_ a: String, _ b: String) -> ComparisonResult {
        a.compare(b, options: [.caseInsensitive, .diacriticInsensitive, .numeric, .widthInsensitive])
    }

    static func scalars(_ a: String, _ b: String) -> ComparisonResult {
        if a.unicodeScalars.elementsEqual(b.unicodeScalars) { return .orderedSame }
        return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars) ? .orderedAscending : .orderedDescending
    }
}
