import Foundation
import ObjectGraph
import XCTest

/// A new entity whose name sorts first, so every other entity is renumbered.
final class Aardvark: ManagedObject {
    @Attribute var name: String = ""
}

/// Renumbering renames join tables and their columns (`Z_1FEATURED` becomes `Z_2FEATURED`):
/// memberships and the order of ordered relationships are carried over.
final class RenumberingMigrationTests: StoreTestCase {
    func testJoinTablesAndOrdersSurviveRenumbering() throws {
        do {
            let context = try makeContainer(Models.music).viewContext
            let playlist = Playlist(context: context)
            playlist.title = "Mix"
            let songs = (1...3).map { index -> Song in
                let song = Song(context: context)
                song.title = "Song \(index)"
                return song
            }
            let tags = (1...3).map { index -> Tag in
                let tag = Tag(context: context)
                tag.label = "Tag \(index)"
                return tag
            }
            playlist.songs = [songs[2], songs[0], songs[1]]
            playlist.featured = [tags[1], tags[2], tags[0]]
            songs[0].tags = [tags[0], tags[1]]
            try context.save()
        }
        let before = try SQLiteFile(storeURL).tableNames().filter { $0.hasPrefix("Z_") && $0.contains("FEATURED") }
        let container = try makeContainer(Models.music + [Aardvark.self])
        let after = try SQLiteFile(storeURL).tableNames().filter { $0.hasPrefix("Z_") && $0.contains("FEATURED") }
        XCTAssertNotEqual(before, after, "the join table was renamed by renumbering: \(before) -> \(after)")
        let playlist = try XCTUnwrap(fetchAll(Playlist.self, in: container.viewContext).first)
        XCTAssertEqual(playlist.songs.map(\.title), ["Song 3", "Song 1", "Song 2"], "ordered one-to-many keeps its order")
        XCTAssertEqual(playlist.featured.map(\.label), ["Tag 2", "Tag 3", "Tag 1"], "ordered many-to-many keeps its order")
        let first = try XCTUnwrap(fetchAll(Song.self, in: container.viewContext).first { $0.title == "Song 1" })
        XCTAssertEqual(first.tags.map(\.label).sorted(), ["Tag 1", "Tag 2"])
        try assertStoreIntegrity(storeURL)
    }
}
