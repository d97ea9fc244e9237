import ArgumentParser
import Foundation
import ObjectGraph

/// Shell completion from the store named on the command line: entity names, and the keys of
/// the entity after it (for `--sort` and the key of `distinct` and `aggregate`). The shell's
/// completion script calls the tool with the words typed so far (`managedrecord ---completion
/// fetch -- positional@1 ...`); a store that cannot be read completes nothing.
enum ModelCompletion {
    /// The entity names of the store's model.
    static let entities = CompletionKind.custom { words, index, prefix in
        guard let model = CompletedLine(words, completing: index).model() else { return [] }
        return model.entities.map(\.name).sorted().filter { $0.hasPrefix(prefix) }
    }

    /// The stored attributes of the entity named after the store.
    static let keys = CompletionKind.custom { words, index, prefix in
        CompletedLine(words, completing: index).attributeNames().filter { $0.hasPrefix(prefix) }
    }

    /// `--sort lastName,-age`: the attributes, after the keys already given, descending when
    /// the word being completed starts with `-`.
    static let sortKeys = CompletionKind.custom { words, index, prefix in
        let head = prefix.lastIndex(of: ",").map { String(prefix[...$0]) } ?? ""
        var part = String(prefix.dropFirst(head.count))
        let descending = part.hasPrefix("-")
        if descending { part.removeFirst() }
        return CompletedLine(words, completing: index).attributeNames()
            .filter { $0.hasPrefix(part) }
            .map { head + (descending ? "-" : "") + $0 }
    }
}

/// The words of a command line being completed: its positional arguments (the store, then
/// the entity) and `--model`.
private struct CompletedLine {
    /// Options that take a value (the next word, or after `=`).
    private static let valued: Set<String> = ["--model", "--sort", "--limit", "--format", "--related-by", "--relationships",
                                              "--output", "-o", "--batch-size", "--where"]
    var positionals: [String] = []
    var modelPath: String?

    /// `words` as the shell passes them (the tool's name, the command, then its arguments),
    /// leaving out the word at `index`, which is being completed.
    init(_ words: [String], completing index: Int) {
        var position = 2
        while position < words.count {
            defer { position += 1 }
            if position == index { continue }
            let word = Self.unquoted(words[position])
            if word.hasPrefix("-") {
                let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
                var value: String?
                if word.contains("=") {
                    value = String(word.drop { $0 != "=" }.dropFirst())
                } else if Self.valued.contains(name), position + 1 < words.count {
                    position += 1
                    value = position == index ? nil : Self.unquoted(words[position])
                }
                if name == "--model" { modelPath = value }
            } else {
                positionals.append(word)
            }
        }
    }

    /// The model of `--model`, else the one the store keeps; nil when neither can be read.
    func model() -> ManagedObjectModel? {
        if let modelPath { return try? ManagedObjectModel(contentsOf: URL(fileURLWithPath: Self.expanded(modelPath))) }
        guard let store = positionals.first else { return nil }
        let path = Self.expanded(store)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try? ManagedObjectModel(storeURL: URL(fileURLWithPath: path))
    }

    /// The stored attributes of the entity given after the store, in the model's order.
    func attributeNames() -> [String] {
        guard positionals.count >= 2, let entity = model()?.entitiesByName[positionals[1]] else { return [] }
        return entity.storedAttributeNames
    }

    /// A word as typed, without its quotes and backslashes (`'My Store.sqlite'`, `My\ Store.sqlite`).
    private static func unquoted(_ word: String) -> String {
        if word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first {
            return String(word.dropFirst().dropLast())
        }
        return word.replacingOccurrences(of: "\\ ", with: " ")
    }

    private static func expanded(_ path: String) -> String { NSString(string: path).expandingTildeInPath }
}
