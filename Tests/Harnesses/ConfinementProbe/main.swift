// Misuses of a context, one per run, chosen by the first argument. Each must stop the
// process with a message saying what went wrong and what to do; ConfinementStopTests runs
// them as subprocesses and checks both. `ok` is the control: correct use, exit 0.
import Foundation
import ManagedRecord

final class Item: ManagedObject {
    @Attribute var name: String = ""
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ConfinementProbe-\(UUID().uuidString)")
let storeURL = folder.appendingPathComponent("Probe.sqlite")
let container = try PersistentContainer(name: "Probe", entities: [Item.self], storeURL: storeURL)
let view = container.viewContext
let first = Item(context: view)
first.name = "first"
try view.save()
try ManagedRecord.setUp(model: "Probe", entities: [Item.self], storeURL: storeURL)

let scenario = CommandLine.arguments.dropFirst().first ?? "ok"
print("scenario: \(scenario)")
try await Probes.run(scenario)
try? FileManager.default.removeItem(at: folder)
print("probe ok")
