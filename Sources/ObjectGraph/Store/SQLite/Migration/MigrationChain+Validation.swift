import Foundation

/// The rule a staged migration's stages obey, checked before anything is written
/// (``MigrationError/Code/invalidStages``): a migration never leaves a store at a version
/// the app's model cannot open.
///
/// - With Swift models (or model files read one by one), the stages form one chain: each
///   stage starts where the one before it ends (no gap, no fork), no version is reached
///   twice (no cycle; a custom stage within one version is allowed), the last stage ends at
///   the model the store is opened with, and one of them starts from the store's version.
/// - With a model read from an `.xcdatamodeld` bundle, the bundle's versions are the chain
///   (they declare each step between stages): each stage goes between two of its versions,
///   forward, and each starts at or after the version where the one before it ends.
extension MigrationChain {
    /// Throws ``MigrationError/Code/invalidStages`` when the stages do not lead a store whose
    /// `Z_METADATA` holds `storeVersionHashes` (not the model's) to the model.
    func validate(storeVersionHashes hashes: [String: Data], url: URL) throws {
        guard isStaged else { return }
        let storeVersion = VersionHash.of(modelHashes: hashes)
        func refuse(_ problem: MigrationError.StageChainProblem) -> MigrationError {
            MigrationError(.invalidStages, url: url, "the migration stages do not form a chain from the store's version to the model, so nothing was migrated: \(problem)", stageChain: problem)
        }
        guard let first = stages.first else {
            throw refuse(.init(.noStages, of: stages, expected: model.versionHash, found: storeVersion))
        }
        if !model.earlierVersions.isEmpty {
            try validateInBundle(refuse)
            return
        }
        for index in stages.indices.dropFirst() {
            let source = stages[index].sourceModel.versionHash, previous = stages[index - 1].destinationModel.versionHash
            guard source != previous else { continue }
            // A fork: an earlier stage that moves on from the same version.
            if let other = stages[..<index].firstIndex(where: { $0.sourceModel.versionHash == source && $0.destinationModel.versionHash != source }) {
                throw refuse(.init(.fork, stage: index, of: stages, expected: previous, found: source, otherStage: other))
            }
            throw refuse(.init(.gap, stage: index, of: stages, expected: previous, found: source))
        }
        var passed: Set<Data> = [first.sourceModel.versionHash]
        for (index, stage) in stages.enumerated() where stage.destinationModel.versionHash != stage.sourceModel.versionHash {
            let destination = stage.destinationModel.versionHash
            guard passed.insert(destination).inserted else {
                throw refuse(.init(.cycle, stage: index, of: stages, expected: destination, found: destination))
            }
        }
        let last = stages.count - 1
        guard stages[last].destinationModel.versionHash == model.versionHash else {
            throw refuse(.init(.doesNotEndAtModel, stage: last, of: stages, expected: model.versionHash, found: stages[last].destinationModel.versionHash))
        }
        guard stages.contains(where: { $0.sourceModel.matchesStoreVersionHashes(hashes) }) else {
            throw refuse(.init(.storeVersionNotInChain, of: stages, expected: first.sourceModel.versionHash, found: storeVersion))
        }
    }

    /// The rule for a bundle's model: each stage between two of the bundle's versions,
    /// forward, in order.
    private func validateInBundle(_ refuse: (MigrationError.StageChainProblem) -> MigrationError) throws {
        let hashes = versions.map(\.versionHash)
        var reached = 0
        for (index, stage) in stages.enumerated() {
            let source = stage.sourceModel.versionHash, destination = stage.destinationModel.versionHash
            guard let from = hashes.lastIndex(of: source) else {
                throw refuse(.init(.outsideBundle, stage: index, of: stages, found: source))
            }
            guard let to = hashes.lastIndex(of: destination) else {
                throw refuse(.init(.outsideBundle, stage: index, of: stages, found: destination))
            }
            guard from >= reached, to >= from else {
                throw refuse(.init(.cycle, stage: index, of: stages, expected: hashes[reached], found: to >= from ? source : destination))
            }
            reached = to
        }
    }
}
