import Foundation
import ObjectGraph

// ManagedRecord demo: everything the ObjectGraph stack and the ManagedRecord layer do today,
// on real store files, step by step. Run it with `swift run Demo`. Each step prints what it does; a check that
// fails stops the demo with exit status 1.

out("ManagedRecord demo: Core Data's object graph on Linux, stored in Core Data's SQLite layout.")
let storeURL = try demoStoreURL()
out("The store is created in a fresh folder: \(storeURL.deletingLastPathComponent().path)")

let johnURI = try basics(storeURL: storeURL)
try reading(storeURL: storeURL, johnURI: johnURI)
try activeRecord(folder: storeURL.deletingLastPathComponent())
try await concurrency(storeURL: storeURL)
try await asyncScript()
try await observation(folder: storeURL.deletingLastPathComponent())

out("\nDone. The stores are kept so you can look inside them:")
out("   sqlite3 \(storeURL.path) '.tables' 'SELECT Z_PK, Z_ENT, ZFIRSTNAME, ZLASTNAME FROM ZEMPLOYEE'")
out("   sqlite3 \(storeURL.deletingLastPathComponent().appendingPathComponent("Staff.sqlite").path) 'SELECT ZFIRSTNAME, ZSALARY, ZTITLE FROM ZSTAFFMEMBER'")
