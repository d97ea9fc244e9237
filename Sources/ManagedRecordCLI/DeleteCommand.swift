import ArgumentParser
import ObjectGraph

/// `managedrecord delete STORE Employee --where "age < 18" [--yes]`: asks, deletes, says how many.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the objects of an entity that match a predicate, after asking (one batch delete; delete rules apply).",
        discussion: """
        Asks on the terminal before deleting; without a terminal (a pipe, a script, cron) it refuses and deletes \
        nothing unless --yes is given.

        EXAMPLES:
          managedrecord delete Company.sqlite Employee --where "age > 50"
          managedrecord delete Company.sqlite Employee --where "age < 18" --yes
          managedrecord delete postgres://app@dbhost/company Department --all --yes
        """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity (sub-entities included).", completion: ModelCompletion.entities) var entity: String
    @Option(name: .customLong("where"), help: "A predicate selecting the objects to delete.")
    var predicate: String?
    @Flag(name: .long, help: "Delete every object of the entity (instead of --where).")
    var all = false
    @Flag(name: .long, help: "Delete without asking.")
    var yes = false

    func validate() throws {
        if predicate == nil && !all { throw ValidationError("say which objects to delete: --where \"PREDICATE\", or --all for every one") }
        if predicate != nil && all { throw ValidationError("give either --where or --all, not both") }
        // An empty --where (an unset shell variable) must not read as "every object".
        if let predicate, predicate.allSatisfy(\.isWhitespace) {
            throw ValidationError("--where is empty: give a predicate (\"age < 18\"), or --all to delete every object")
        }
    }

    func run() throws {
        try reportingErrors {
            let opened = try store.open(writable: true)
            let request = try opened.request(entity, predicate)
            let matching = try opened.context.count(for: request)
            let what = "\(entity) \(matching == 1 ? "object" : "objects")"
            if matching > 0 && !yes {
                let which = predicate.map { " matching \($0)" } ?? ""
                // No one to ask in a pipe, a script or cron: refused, as gh refuses (nothing is read from the input).
                guard Terminal.inputIsATerminal else {
                    throw CLIError(.notConfirmed, "standard input is not a terminal, so delete cannot ask before deleting \(matching) \(what)\(which): pass --yes to delete without asking. Nothing was deleted")
                }
                guard Terminal.confirm("Delete \(matching) \(what)\(which) from \(store.display)?") else {
                    Terminal.error("not confirmed: nothing deleted (pass --yes to delete without asking)")
                    throw ExitCode.failure
                }
            }
            // One statement, all or nothing: on a terminal, a line while it runs.
            if matching > 0 { Terminal.progress("deleting \(matching) \(what)...") }
            let result = try opened.context.execute(BatchDeleteRequest(entityName: entity, predicate: request.predicate))
            Terminal.clearProgress()
            Terminal.write("deleted \(result.count) \(entity) \(result.count == 1 ? "object" : "objects")\n")
        }
    }
}
