import Foundation
import ObjectGraph
import XCTest

/// Version 2 of the Ticket entity: two new attributes and a new related entity.
final class TicketV2: ManagedObject {
    override class var entityName: String { "Ticket" }
    @Attribute var title: String = ""
    @Attribute var priority: Int = 0
    @Attribute var createdBy: String = ""
    @Attribute var saveCount: Int = 0
    @Attribute var locked: Bool = false
    @Attribute var note: String? = nil
    @Attribute var rank: Int = 7
    @Relationship(inverse: \TicketLabel.$ticket, deleteRule: .cascade) var labels: Set<TicketLabel>
}

final class TicketLabel: ManagedObject {
    @Attribute var text: String = ""
    @Relationship var ticket: TicketV2?
}

/// Lightweight migration: what a newer model adds is added to the store when it opens.
final class MigrationTests: StoreTestCase {
    private var v2: [ManagedObject.Type] { [TicketV2.self, TicketLabel.self] }

    private func writeVersion1() throws {
        let container = try makeContainer(Models.tickets)
        let ticket = Ticket(context: container.viewContext)
        ticket.title = "Old"
        ticket.priority = 3
        try container.viewContext.save()
    }

    func testANewerModelAddsColumnsAndTablesAndOldRowsGetDefaults() throws {
        try writeVersion1()
        let model = try ManagedObjectModel(entities: v2)
        XCTAssertTrue(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL))
        do {
            let container = try PersistentContainer(name: "Test", model: model, storeURL: storeURL)
            let ticket = try XCTUnwrap(fetchAll(TicketV2.self, in: container.viewContext).first)
            XCTAssertEqual(ticket.title, "Old")
            XCTAssertEqual(ticket.priority, 3)
            XCTAssertNil(ticket.note)
            XCTAssertEqual(ticket.rank, 7, "a new non-optional attribute gets its default in old rows")
            ticket.note = "migrated"
            let label = TicketLabel(context: container.viewContext)
            label.text = "urgent"
            label.ticket = ticket
            try container.viewContext.save()
        }
        XCTAssertFalse(try PersistentStoreCoordinator.requiresMigration(model: model, storeURL: storeURL))
        let file = try SQLiteFile(storeURL)
        XCTAssertTrue(try file.columns(of: "ZTICKET").contains("ZNOTE"))
        XCTAssertTrue(try file.columns(of: "ZTICKET").contains("ZRANK"))
        XCTAssertTrue(try file.tableNames().contains("ZTICKETLABEL"))
        XCTAssertEqual(try file.rows("SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT"), [[.text("Ticket")], [.text("TicketLabel")]],
                       "existing entity numbers are kept, new entities numbered after them")
        XCTAssertEqual(try file.rows("PRAGMA integrity_check"), [[.text("ok")]])
        let plist = try XCTUnwrap(file.scalar("SELECT Z_PLIST FROM Z_METADATA")?.data)
        let metadata = try XCTUnwrap(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
        XCTAssertEqual(metadata["NSStoreModelVersionHashes"] as? [String: Data], model.entityVersionHashesByName)

        let reopened = try PersistentContainer(name: "Test", model: model, storeURL: storeURL)
        let ticket = try XCTUnwrap(fetchAll(TicketV2.self, in: reopened.viewContext).first)
        XCTAssertEqual(ticket.note, "migrated")
        XCTAssertEqual(ticket.labels.map(\.text), ["urgent"])
    }

    func testWithoutMigrationANewerModelIsRefusedAndTheStoreLeftAlone() throws {
        try writeVersion1()
        let before = try SQLiteFile.dump(storeURL)
        let model = try ManagedObjectModel(entities: v2)
        XCTAssertThrowsError(try PersistentStoreCoordinator(model: model, storeURL: storeURL, migrate: false)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
        }
        XCTAssertEqual(try SQLiteFile.dump(storeURL), before)
    }
}
