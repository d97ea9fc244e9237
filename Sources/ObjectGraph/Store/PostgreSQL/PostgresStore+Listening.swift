import Foundation

// Commits of other processes, heard through LISTEN on the store's channel and handed to the
// coordinator as the change sets a local save broadcasts.
extension PostgresStore {
    /// Listens on the store's channel for `coordinator`'s life: each notification from
    /// another store opening becomes a change set (the updated rows read again, so contexts
    /// merge their values); after the listener reconnected (changes may have been missed) or
    /// a commit too large to list, the coordinator refreshes everything (see
    /// ``PersistentStoreCoordinator/refreshEverything()``).
    func listen(for coordinator: PersistentStoreCoordinator) throws {
        let sender = senderID
        try driver.listen(channel) { [weak coordinator, weak self] payload in
            guard let coordinator, let self else { return }
            guard let payload else {
                coordinator.refreshEverything()
                return
            }
            guard let notice = PostgresChangeNotice(payload: payload), notice.sender != sender else { return }
            if notice.everything {
                coordinator.refreshEverything()
                return
            }
            do {
                coordinator.broadcastRemote(try self.changeSet(notice))
            } catch {
                // The rows could not be read (the store closed, or the server went away).
                coordinator.refreshEverything()
            }
        }
    }

    /// The change set `notice` stands for, with the updated rows as stored now.
    func changeSet(_ notice: PostgresChangeNotice) throws -> ChangeSet {
        var set = ChangeSet()
        set.inserted = notice.inserted.compactMap(objectID)
        set.deleted = notice.deleted.compactMap(objectID)
        for (number, maxKey) in notice.emptied {
            if let entity = layout.entitiesByNumber[number] { set.deletedEntities.append(EntityDeletion(entities: [entity], maxKey: maxKey)) }
        }
        let updated = notice.updated.compactMap(objectID)
        if !updated.isEmpty {
            try rows(of: updated) { row in set.updated.append((row.id, row.values, row.version)) }
        }
        set.changes.inserted = Set(set.inserted)
        set.changes.updated = Set(set.updated.map(\.id))
        set.changes.deleted = Set(set.deleted)
        return set
    }
}
