import Foundation
import ObjectGraph
import XCTest

final class RelationshipTests: StoreTestCase {
    func testSettingAToOneUpdatesTheInverseToManyAtOnce() throws {
        let container = try makeContainer(Models.company)
        let context = container.viewContext
        let sales = Department(context: context)
        let support = Department(context: context)
        let john = Employee(context: context)
        john.department = sales
        XCTAssertEqual(sales.employees, [john])
        john.department = support
        XCTAssertEqual(sales.employees, [], "moving john removes him from the old department")
        XCTAssertEqual(support.employees, [john])
        support.employees = []
        XCTAssertNil(john.department, "emptying the to-many clears the inverse to-one")
    }

    func testToOneAndToManyAreReadInBothDirectionsAfterReopen() throws {
        do {
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let sales = Department(context: context)
            sales.name = "Sales"
            let empty = Department(context: context)
            empty.name = "Empty"
            for name in ["Ann", "Bob", "Cy"] {
                let employee = Employee(context: context)
                employee.firstName = name
                employee.department = sales
            }
            let loner = Employee(context: context)
            loner.firstName = "Loner"
            try context.save()
        }
        let reopened = try makeContainer(Models.company)
        let context = reopened.viewContext
        let departments = try fetchAll(Department.self, in: context, sortedBy: "name")
        XCTAssertEqual(departments.map(\.name), ["Empty", "Sales"])
        XCTAssertEqual(departments[0].employees, [])
        XCTAssertEqual(Set(departments[1].employees.map(\.firstName)), ["Ann", "Bob", "Cy"])
        let employees = try fetchAll(Employee.self, in: context, sortedBy: "firstName")
        XCTAssertEqual(employees.map { $0.department?.name ?? "-" }, ["Sales", "Sales", "Sales", "-"])
        XCTAssertTrue(employees[0].department === departments[1], "the to-one destination is the registered department")
    }

    func testSubEntityRelationshipsSurviveReopen() throws {
        do {
            let container = try makeContainer(Models.company)
            let context = container.viewContext
            let boss = Manager(context: context)
            boss.firstName = "Boss"
            boss.level = 3
            let worker = Employee(context: context)
            worker.firstName = "Worker"
            worker.manager = boss
            let deputy = Manager(context: context)
            deputy.firstName = "Deputy"
            deputy.manager = boss
            XCTAssertEqual(boss.reports, [worker, deputy])
            try context.save()
        }
        let reopened = try makeContainer(Models.company)
        let employees = try fetchAll(Employee.self, in: reopened.viewContext, sortedBy: "firstName")
        XCTAssertEqual(employees.map(\.firstName), ["Boss", "Deputy", "Worker"])
        let boss = try XCTUnwrap(employees[0] as? Manager)
        XCTAssertEqual(boss.level, 3)
        XCTAssertEqual(Set(boss.reports.map(\.firstName)), ["Deputy", "Worker"])
        XCTAssertTrue(employees[2].manager === boss)
        XCTAssertTrue(employees[1] is Manager)
        XCTAssertTrue(employees[1].manager === boss)
    }

    func testManyToManyIsReadFromBothSidesAfterReopen() throws {
        do {
            let container = try makeContainer(Models.music)
            let context = container.viewContext
            let rock = Tag(context: context)
            rock.label = "rock"
            let live = Tag(context: context)
            live.label = "live"
            let quiet = Tag(context: context)
            quiet.label = "quiet"
            let a = Song(context: context)
            a.title = "A"
            let b = Song(context: context)
            b.title = "B"
            a.tags = [rock, live]
            b.tags = [rock]
            XCTAssertEqual(rock.songs, [a, b], "the inverse to-many is updated in memory at once")
            XCTAssertEqual(live.songs, [a])
            try context.save()
        }
        do {
            let container = try makeContainer(Models.music)
            let tags = try fetchAll(Tag.self, in: container.viewContext, sortedBy: "label")
            XCTAssertEqual(tags.map(\.label), ["live", "quiet", "rock"])
            XCTAssertEqual(tags.map { Set($0.songs.map(\.title)) }, [["A"], [], ["A", "B"]])
            let songs = try fetchAll(Song.self, in: container.viewContext, sortedBy: "title")
            XCTAssertEqual(songs.map { Set($0.tags.map(\.label)) }, [["rock", "live"], ["rock"]])
            // Change it from the other side: B gets "quiet", A loses "rock".
            tags[1].songs = [songs[1]]
            tags[2].songs.remove(songs[0])
            XCTAssertEqual(Set(songs[0].tags.map(\.label)), ["live"])
            XCTAssertEqual(Set(songs[1].tags.map(\.label)), ["rock", "quiet"])
            try container.viewContext.save()
        }
        let reopened = try makeContainer(Models.music)
        let songs = try fetchAll(Song.self, in: reopened.viewContext, sortedBy: "title")
        XCTAssertEqual(songs.map { Set($0.tags.map(\.label)) }, [["live"], ["rock", "quiet"]])
        let tags = try fetchAll(Tag.self, in: reopened.viewContext, sortedBy: "label")
        XCTAssertEqual(tags.map { Set($0.songs.map(\.title)) }, [["A"], ["B"], ["B"]])
    }

    func testClearingAToOneAfterReopenIsSavedAsNull() throws {
        do {
            let container = try makeContainer(Models.company)
            let sales = Department(context: container.viewContext)
            let john = Employee(context: container.viewContext)
            john.department = sales
            try container.viewContext.save()
        }
        do {
            let container = try makeContainer(Models.company)
            let john = try XCTUnwrap(fetchAll(Employee.self, in: container.viewContext).first)
            john.department = nil
            try container.viewContext.save()
        }
        XCTAssertEqual(try SQLiteFile(storeURL).rows("SELECT ZDEPARTMENT FROM ZEMPLOYEE"), [[.null]])
        let reopened = try makeContainer(Models.company)
        let sales = try XCTUnwrap(fetchAll(Department.self, in: reopened.viewContext).first)
        XCTAssertEqual(sales.employees, [])
    }

    func testAnOrderedManyToManyKeepsItsOrderAfterReopen() throws {
        do {
            let container = try makeContainer(Models.music)
            let context = container.viewContext
            let tags = ["a", "b", "c", "d"].map { label -> Tag in
                let tag = Tag(context: context)
                tag.label = label
                return tag
            }
            let first = Playlist(context: context)
            first.title = "first"
            first.featured = [tags[2], tags[0], tags[3], tags[1]]
            let second = Playlist(context: context)
            second.title = "second"
            second.featured = [tags[1], tags[2]]
            XCTAssertEqual(tags[2].featuredIn, [first, second], "the inverse is updated in memory")
            try context.save()
        }
        let reopened = try makeContainer(Models.music)
        let playlists = try fetchAll(Playlist.self, in: reopened.viewContext, sortedBy: "title")
        XCTAssertEqual(playlists[0].featured.map(\.label), ["c", "a", "d", "b"])
        XCTAssertEqual(playlists[1].featured.map(\.label), ["b", "c"])
        let tags = try fetchAll(Tag.self, in: reopened.viewContext, sortedBy: "label")
        XCTAssertEqual(tags.map { Set($0.featuredIn.map(\.title)) }, [["first"], ["first", "second"], ["first", "second"], ["first"]])
    }

    func testDeletingAManyToManyMemberRemovesItsJoinRowsAndNullifiesTheOtherSide() throws {
        do {
            let container = try makeContainer(Models.music)
            let context = container.viewContext
            let rock = Tag(context: context)
            rock.label = "rock"
            let pop = Tag(context: context)
            pop.label = "pop"
            let song = Song(context: context)
            song.title = "S"
            song.tags = [rock, pop]
            try context.save()
            context.delete(rock)
            XCTAssertEqual(song.tags, [pop], "nullify removes the deleted tag at once")
            try context.save()
        }
        let file = try SQLiteFile(storeURL)
        let joinTable = try XCTUnwrap(try file.tableNames().first { $0.hasSuffix("TAGS") && $0.hasPrefix("Z_") })
        XCTAssertEqual(try file.scalar("SELECT count(*) FROM \(joinTable)"), .integer(1))
        let reopened = try makeContainer(Models.music)
        let song = try XCTUnwrap(fetchAll(Song.self, in: reopened.viewContext).first)
        XCTAssertEqual(song.tags.map(\.label), ["pop"])
    }

    func testReorderingAnOrderedManyToManyAfterReopenIsSaved() throws {
        do {
            let container = try makeContainer(Models.music)
            let context = container.viewContext
            let playlist = Playlist(context: context)
            playlist.featured = ["a", "b", "c"].map { label -> Tag in
                let tag = Tag(context: context)
                tag.label = label
                return tag
            }
            try context.save()
        }
        do {
            let container = try makeContainer(Models.music)
            let playlist = try XCTUnwrap(fetchAll(Playlist.self, in: container.viewContext).first)
            XCTAssertEqual(playlist.featured.map(\.label), ["a", "b", "c"])
            playlist.featured = playlist.featured.reversed()
            XCTAssertTrue(container.viewContext.hasChanges, "a new order is a change")
            try container.viewContext.save()
        }
        let reopened = try makeContainer(Models.music)
        let playlist = try XCTUnwrap(fetchAll(Playlist.self, in: reopened.viewContext).first)
        XCTAssertEqual(playlist.featured.map(\.label), ["c", "b", "a"])
    }
}
