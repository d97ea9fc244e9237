import ArgumentParser
import ObjectGraph

/// `managedrecord count STORE Employee "age > 40"`: one number.
struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", abstract: "Print how many objects of an entity match a predicate (one SELECT COUNT).",
        discussion: """
        EXAMPLES:
          managedrecord count Company.sqlite Employee
          managedrecord count Company.sqlite Employee "department.name == 'Sales'"
          managedrecord count postgres://app@dbhost/company Employee
        """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var query: QueryOptions

    func run() throws {
        try reportingErrors {
            let opened = try store.open()
            Terminal.write("\(try opened.context.count(for: query.request(in: opened)))\n")
        }
    }
}
