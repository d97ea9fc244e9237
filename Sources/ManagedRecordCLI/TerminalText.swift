/// Text as a table cell shows it on a terminal: every character visible, one line, and its
/// width in terminal columns, so that columns line up whatever the text holds.
enum TerminalText {
    /// `text` with what a terminal would not show as itself escaped: control characters
    /// (`\r`, `\n`, `\t`, `\0`, others as `\u{1B}`), format characters that are not part of
    /// an emoji (`\u{200B}`, `\u{202E}`, which would reorder the line), line and paragraph
    /// separators, and the backslash itself (`\\`), so that the escapes cannot be confused
    /// with the text. A `\r\n` shows as `\r\n`, never as a line break.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\0": escape = "\\0"
            default: escape = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            result.append(contentsOf: escape.unicodeScalars)
        }
        return String(result)
    }

    /// Whether `visible` escapes the scalar.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        case .format: return scalar != "\u{200D}"   // the joiner of emoji sequences stays
        default: return scalar == "\\"
        }
    }

    /// The columns `text` (already ``visible(_:)``) takes on a terminal: 2 for a wide
    /// character (CJK, an emoji shown as one), 0 for combining marks on their own, else 1,
    /// counted per character as the user sees it (an emoji sequence is one).
    static func width(_ text: String) -> Int {
        var total = 0
        for character in text {
            total += width(of: character)
        }
        return total
    }

    private static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) || scalars.contains("\u{FE0F}") && first.properties.isEmoji {
            return 2
        }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return 0
        default: return isWide(first) ? 2 : 1
        }
    }

    /// East Asian Wide and Fullwidth characters (the ranges terminals draw two columns wide).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
             0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
