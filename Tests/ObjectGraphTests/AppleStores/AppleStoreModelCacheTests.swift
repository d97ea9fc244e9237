import Foundation
@testable import ObjectGraph
import XCTest

/// The compiled model Apple's Core Data keeps in `Z_MODELCACHE` (raw DEFLATE of a keyed
/// archive), read back: it is the model that wrote each fixture store (its version hashes
/// are the store's), so a store opens without its `.xcdatamodeld`, and migrates from it.
final class AppleStoreModelCacheTests: StoreTestCase {
    private let stores = [("CoreDataPlus", "SampleModel_V1.sqlite"), ("EasyLife", "EasyLife-1.5.0.sqlite"),
                          ("MigrationRevised", "CoreDataMigration_Example_1.sqlite"), ("MigrationRevised", "CoreDataMigration_Example_2.sqlite"),
                          ("MigrationRevised", "CoreDataMigration_Example_3.sqlite")]

    func testEveryFixtureStoreOpensWithTheModelItsCacheHolds() throws {
        for (folder, name) in stores {
            let url = try Fixtures.copy(folder, name, into: directory)
            let before = try Data(contentsOf: url)
            let model = try ManagedObjectModel(storeURL: url)
            XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: url), "\(name): the cached model wrote the store")
            let container = try PersistentContainer(name: "Cache", model: model, storeURL: url, options: [.readOnly])
            for entity in model.entities where entity.superentity == nil {
                XCTAssertNoThrow(try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: entity.name)), "\(name): \(entity.name)")
            }
            container.persistentStoreCoordinator.close()
            XCTAssertEqual(try Data(contentsOf: url), before, "\(name) is not changed")
        }
    }

    func testTheMigrationRevisedCacheNamesItsEntityAndAttributes() throws {
        let url = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_1.sqlite", into: directory)
        let model = try ManagedObjectModel(storeURL: url)
        XCTAssertEqual(model.entities.map(\.name), ["Post"])
        XCTAssertEqual(Set(model.entitiesByName["Post"]?.properties.map(\.name) ?? []), ["date", "postID", "content", "color"])
        XCTAssertEqual((model.entitiesByName["Post"]?.property(named: "date") as? AttributeDescription)?.attributeType, .date)
    }

    func testDeflateRoundTripsStoredFixedAndDynamicBlocks() throws {
        // A stored block: header bits 1 (last) and 00, then LEN, NLEN and the bytes.
        XCTAssertEqual(try RawInflate.inflate([0x01, 0x03, 0x00, 0xFC, 0xFF, 0x61, 0x62, 0x63]), Array("abc".utf8))
        // Fixed Huffman "abcabcabc" as zlib's raw deflate writes it.
        XCTAssertEqual(try RawInflate.inflate([0x4B, 0x4C, 0x4A, 0x4E, 0x04, 0x23, 0x00]), Array("abcabcabc".utf8))
        XCTAssertThrowsError(try RawInflate.inflate([0x07]), "a block of an unknown type")
    }

    // MARK: A cache that cannot be read

    /// The fixture store with its `Z_MODELCACHE` content replaced by `content`.
    private func storeWithModelCache(_ content: String) throws -> URL {
        let folder = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_1.sqlite", into: folder)
        _ = try SQLiteFile(url, readOnly: false).rows("UPDATE Z_MODELCACHE SET Z_CONTENT = \(content)")
        return url
    }

    func testACorruptedModelCacheSaysItCouldNotBeReadAndWhy() throws {
        // Before: "the store does not describe its model (it was written by Apple's Core Data…)", code noModel.
        let cases = [("x'07'", "DEFLATE"),                        // a block of an unknown type
                     ("x'0103'", "DEFLATE"),                      // ends in the middle of a block
                     ("x'010300fcff616263'", "property list")]    // inflates to "abc", not an archive
        for (content, reason) in cases {
            let url = try storeWithModelCache(content)
            let before = try Data(contentsOf: url)
            XCTAssertThrowsError(try ManagedObjectModel(storeURL: url), content) { error in
                let storeError = error as? StoreError
                XCTAssertEqual(storeError?.code, .corruptMetadata, "\(error)")
                XCTAssertTrue(storeError?.message.contains("Z_MODELCACHE") ?? false, "\(error)")
                XCTAssertTrue(storeError?.message.contains("cannot be read") ?? false, "\(error)")
                XCTAssertTrue(storeError?.message.contains(reason) ?? false, "says why (\(reason)): \(error)")
                XCTAssertFalse(storeError?.message.contains("does not describe its model") ?? true, "\(error)")
            }
            XCTAssertEqual(try Data(contentsOf: url), before, "the store is not changed")
        }
    }

    /// Every fixture's cache truncated at random lengths and with random bits flipped: the
    /// reader returns a model or throws its `Failure`, never traps or hangs, and a store with
    /// such a cache opens with a model or refuses with a `StoreError`. Seeded
    /// (`MANAGEDRECORD_MODELCACHE_SEED`), `MANAGEDRECORD_MODELCACHE_CASES` per fixture (default 60).
    func testTruncatedAndBitFlippedCachesAreReadOrRefusedNeverATrap() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["MANAGEDRECORD_MODELCACHE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...1_000_000)
        let cases = environment["MANAGEDRECORD_MODELCACHE_CASES"].flatMap(Int.init) ?? 60
        var random = SplitMix(seed: seed)
        print("AppleStoreModelCacheTests: corrupted caches from seed \(seed) (MANAGEDRECORD_MODELCACHE_SEED)")
        for (folder, name) in stores {
            let url = try Fixtures.copy(folder, name, into: directory)
            guard case .blob(let original)? = try SQLiteFile(url).scalar("SELECT Z_CONTENT FROM Z_MODELCACHE") else {
                return XCTFail("\(name) has a cache")
            }
            for index in 0..<cases {
                var bytes = [UInt8](original)
                if index % 3 == 0 {
                    bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
                } else {
                    for _ in 0..<(1 + random.next() % 4) where !bytes.isEmpty {
                        bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(1) << (random.next() % 8)
                    }
                }
                do {
                    let xml = try ModelCacheArchive.modelXML(compressed: Data(bytes))
                    _ = try? ManagedObjectModel.reading(contentsXML: xml, file: url)   // a model, or a typed refusal
                } catch is ModelCacheArchive.Failure {
                } catch {
                    XCTFail("seed \(seed), \(name) case \(index): \(error) is not the reader's Failure")
                }
            }
        }
    }

    func testAStoreWithoutAModelCacheStillSaysItDoesNotDescribeItsModel() throws {
        let url = try Fixtures.copy("MigrationRevised", "CoreDataMigration_Example_1.sqlite", into: directory)
        _ = try SQLiteFile(url, readOnly: false).rows("DELETE FROM Z_MODELCACHE")
        XCTAssertThrowsError(try ManagedObjectModel(storeURL: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .noModel, "\(error)")
        }
    }
}
