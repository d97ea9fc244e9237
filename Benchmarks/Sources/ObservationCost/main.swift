import Foundation
import ObjectGraph

// What observation costs per save, counted in instructions under callgrind (docs/performance.md,
// "Observation costs nothing when nobody observes"):
//
//   swift build -c release --product ObservationCost
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null .build/release/ObservationCost none 1000
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null .build/release/ObservationCost none 3000
//
// The difference of the two totals over 2000 saves is the cost of one save. Each save changes
// one attribute of one object and inserts one object, in the view context, while a second
// (background) context is alive and merges, as in any app with a background context.
// Modes: `none` (nobody observes), `callback` (a commit observer on the container),
// `results` (fetched results over every object on the view context, in memory).

final class Item: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var rank: Int = 0
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "none"
let saves = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ObservationCost-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let container = try PersistentContainer(name: "Cost", entities: [Item.self], storeURL: folder.appendingPathComponent("Cost.sqlite"))
let context = container.viewContext
let background = container.newBackgroundContext()
let first = Item(context: context)
first.name = "first"
try context.save()

#if OBSERVATION
var observation: ChangeObservation?
var results: FetchedResults<Item>?
switch mode {
case "callback": observation = container.addChangeObserver { _ in }
case "results": results = try FetchedResults(FetchRequest<Item>(sortDescriptors: [SortKey("rank")]), context: context)
default: break
}
#endif

for index in 0..<saves {
    first.rank = index
    let item = Item(context: context)
    item.name = "item"
    item.rank = -index
    try context.save()
}
// The background context merges everything at its next use.
let count = try background.performAndWait { try background.count(for: FetchRequest<Item>()) }
print("\(mode): \(saves) saves, \(count) items")
