import Foundation
import ObjectGraph
import XCTest

/// Stores written by Apple's Core Data keep derived attributes with triggers that call Core
/// Data's own SQL functions. A save here fires them as Core Data's saves do: the store
/// recomputes the values, and faults read the recomputed rows.
final class CoreDataTriggerTests: StoreTestCase {
    private static let model = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Folder" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="noteCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="notes.@count"/>
            <attribute name="touched" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()"/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        <entity name="Note" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
        </entity>
    </model>
    """

    /// The triggers Core Data creates for the two derived attributes (as its SQL generator
    /// writes them: the trigger does the work, then reports the value through a function).
    private static let triggers = [
        """
        CREATE TRIGGER IF NOT EXISTS Z_DA_ZFOLDER_Folder_noteCount_Note_folder_INSERT AFTER INSERT ON ZNOTE FOR EACH ROW WHEN (NEW.ZFOLDER NOT NULL) \
        BEGIN UPDATE ZFOLDER SET ZNOTECOUNT = IFNULL(ZNOTECOUNT, 0) + 1 WHERE Z_PK = NEW.ZFOLDER; \
        SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZFOLDER', Z_ENT, Z_PK, 'noteCount', ZNOTECOUNT) FROM ZFOLDER WHERE Z_PK = NEW.ZFOLDER; END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS Z_DA_ZFOLDER_Folder_touched_UPDATE AFTER UPDATE OF Z_OPT ON ZFOLDER FOR EACH ROW \
        BEGIN UPDATE ZFOLDER SET ZTOUCHED = NSCoreDataNow() WHERE Z_PK = NEW.Z_PK; \
        SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZFOLDER', Z_ENT, Z_PK, 'touched', ZTOUCHED) FROM ZFOLDER WHERE Z_PK = NEW.Z_PK; END
        """,
    ]

    func testASaveFiresCoreDatasDerivedAttributeTriggersAndFaultsReadTheRecomputedValues() throws {
        let file = directory.appendingPathComponent("contents")
        try Self.model.write(to: file, atomically: true, encoding: .utf8)
        let model = try ManagedObjectModel(contentsOf: file)
        let container = try PersistentContainer(name: "Notes", model: model, storeURL: storeURL)
        let context = container.viewContext
        let folder = try context.insertNewObject(forEntityName: "Folder")
        try folder.setValue("Inbox", forKey: "name")
        try context.save()
        let folderID = folder.objectID
        do {
            let sqlite = try SQLiteFile(storeURL, readOnly: false)
            for trigger in Self.triggers { _ = try sqlite.rows(trigger) }
        }

        let start = Date()
        for title in ["one", "two"] {
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue(title, forKey: "title")
            try note.setValue(folder, forKey: "folder")
        }
        try folder.setValue("Inbox (2)", forKey: "name")
        try context.save()

        // A fault in another context reads the row as the triggers left it, not the cached row.
        let other = ManagedObjectContext(coordinator: container.persistentStoreCoordinator)
        let fault = other.object(with: folderID)
        XCTAssertEqual(fault.value(forKey: "noteCount") as? Int64, 2, "the @count trigger ran")
        let touched = try XCTUnwrap(fault.value(forKey: "touched") as? Date, "the now() trigger ran")
        XCTAssertGreaterThanOrEqual(touched.timeIntervalSince(start), -1)
        XCTAssertEqual(fault.value(forKey: "name") as? String, "Inbox (2)")

        // The saving context sees the recomputed values once it refreshes, as in Core Data.
        context.refresh(folder, mergeChanges: false)
        XCTAssertEqual(folder.value(forKey: "noteCount") as? Int64, 2)
        XCTAssertEqual(try SQLiteFile(storeURL).rows("PRAGMA integrity_check").first?.first, .text("ok"))
    }
}
