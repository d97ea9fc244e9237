/// Where an object sits in ``FetchedResults``: its section and its index inside the section.
/// Without a section key path there is one section, 0.
public struct ResultPosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (a: ResultPosition, b: ResultPosition) -> Bool {
        (a.section, a.item) < (b.section, b.item)
    }

    public var description: String { "[\(section), \(item)]" }
}
