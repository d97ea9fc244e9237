import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of an Xcode model's `contents` XML: its name, attributes, children and line.
struct ModelFileElement {
    let name: String
    let attributes: [String: String]
    var children: [ModelFileElement] = []
    let line: Int

    /// The children named `name`.
    func children(named name: String) -> [ModelFileElement] { children.filter { $0.name == name } }

    /// The element as a person finds it in the file: `<attribute name="price"> (line 12)`.
    var label: String {
        let name = attributes["name"].map { " name=\"\($0)\"" } ?? ""
        return "<\(self.name)\(name)> (line \(line))"
    }

    /// Reads `data` (a model's `contents`) into a tree; a parse error names the line.
    static func parse(_ data: Data, file: URL) throws -> ModelFileElement {
        let parser = XMLParser(data: data)
        let builder = TreeBuilder(parser)
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else {
            if data.starts(with: Data("bplist".utf8)) || ["mom", "momd", "omo"].contains(file.pathExtension) {
                throw ModelError(.invalidModelFile, "this is a compiled model (.mom), which cannot be read; use the .xcdatamodeld folder from the app's sources", file: file)
            }
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw ModelError(.invalidModelFile, "the file is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber)): \(reason)", file: file)
        }
        return root
    }

    /// Collects elements as the parser reports them (the parser is used on one thread only).
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        unowned let parser: XMLParser
        var stack: [ModelFileElement] = []
        var root: ModelFileElement?

        init(_ parser: XMLParser) { self.parser = parser }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            stack.append(ModelFileElement(name: elementName, attributes: ModelFileText.decoded(attributeDict), line: parser.lineNumber))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }
}

/// How the model XML this library writes holds any string, so that it reads back exactly.
///
/// An attribute value is written with `&`, `<`, `>`, `"` and the three XML whitespace
/// characters (tab, line feed, carriage return) as references, scalar by scalar (a quote that
/// carries a combining mark, or `\r\n`, is one Swift `Character` but two scalars). XML 1.0
/// cannot hold the other C0 controls (U+0000–U+001F), U+FFFE or U+FFFF at all, not even as
/// references: a value with any of them is written under the attribute's name followed by
/// ``escapedSuffix`` (`defaultValueString.escaped="a\u{1}b"`), with each such scalar spelled
/// `\u{hex}` and each backslash doubled. The reader (``decoded(_:)``) turns it back into the
/// plain attribute; values without such characters are written as Xcode writes them.
enum ModelFileText {
    /// The suffix of an attribute whose value is escaped.
    static let escapedSuffix = ".escaped"

    /// ` name="value"` (or ` name.escaped="..."`), nothing for nil.
    static func attribute(_ name: String, _ value: String?) -> String {
        guard let value else { return "" }
        if value.unicodeScalars.allSatisfy(isXMLCharacter) {
            return " \(name)=\"\(referenced(value))\""
        }
        var escaped = ""
        for scalar in value.unicodeScalars {
            if scalar == "\\" {
                escaped += "\\\\"
            } else if isXMLCharacter(scalar) {
                escaped.unicodeScalars.append(scalar)
            } else {
                escaped += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return " \(name)\(escapedSuffix)=\"\(referenced(escaped))\""
    }

    /// Whether XML 1.0 can hold `scalar` (its `Char` production).
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// `text` with XML's special characters and whitespace as references.
    private static func referenced(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The attributes as written before ``attribute(_:_:)`` escaped any: each `name.escaped`
    /// decoded into `name`.
    static func decoded(_ attributes: [String: String]) -> [String: String] {
        guard attributes.keys.contains(where: { $0.hasSuffix(escapedSuffix) }) else { return attributes }
        var result = attributes
        for (key, value) in attributes where key.hasSuffix(escapedSuffix) {
            result[key] = nil
            result[String(key.dropLast(escapedSuffix.count))] = unescaped(value)
        }
        return result
    }

    /// `text` with `\\` and `\u{hex}` read back (anything else is kept as it is).
    private static func unescaped(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "\\", index < scalars.count else {
                result.append(scalar)
                continue
            }
            if scalars[index] == "\\" {
                result.append("\\")
                index += 1
            } else if scalars[index] == "u", index + 1 < scalars.count, scalars[index + 1] == "{",
                      let close = scalars[(index + 2)...].firstIndex(of: "}"),
                      let value = UInt32(String(String.UnicodeScalarView(scalars[(index + 2)..<close])), radix: 16),
                      let decoded = Unicode.Scalar(value) {
                result.append(decoded)
                index = close + 1
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
