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
            throw ModelError(.invalidModelFile, "the file is not well-formed XML (line \(parser.lineNumber)): \(reason)", file: file)
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
            stack.append(ModelFileElement(name: elementName, attributes: attributeDict, line: parser.lineNumber))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }
    }
}
