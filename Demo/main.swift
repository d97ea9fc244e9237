import Foundation
import ObjectGraph

// ManagedRecord demo: everything the ObjectGraph stack does today, on a real store file,
// step by step. Run it with `swift run Demo`. Each step prints what it does; a check that
// fails stops the demo with exit status 1.

out("ManagedRecord demo: Core Data's object graph on Linux, stored in Core Data's SQLite layout.")
let storeURL = try demoStoreURL()
out("The store is created in a fresh folder: \(storeURL.deletingLastPathComponent().path)")

let johnURI = try basics(storeURL: storeURL)
try reading(storeURL: storeURL, johnURI: johnURI)
try await concurrency(storeURL: storeURL)

out("\nDone. The store is kept so you can look inside it:")
out("   sqlite3 \(storeURL.path) '.tables' 'SELECT Z_PK, Z_ENT, ZFIRSTNAME, ZLASTNAME FROM ZEMPLOYEE'")
