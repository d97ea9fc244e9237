import Foundation

/// The versions a store migrates through to reach a model, and the stages
/// (``StagedMigrationManager``) among them: which move comes next for a store at a version.
///
/// The versions are, for a model read from an `.xcdatamodeld` bundle, the bundle's versions
/// (oldest first, the model last); else the stages' source and destination models in stage
/// order, then the model. Without stages this is the lightweight migration of old: from the
/// version that wrote the store through each later one, or straight to the model.
struct MigrationChain {
    /// What to do next with a store at some version.
    enum Move {
        /// Run this stage (an index into ``stages``).
        case stage(Int)
        /// Migrate by lightweight inference through `steps` (replacing the store once), from
        /// the store's version `writtenWith` (nil when no version of the chain is the
        /// store's); `declared`: the chain's versions declare the change, so data the last
        /// step has no place for may be dropped.
        case lightweight(steps: [ManagedObjectModel], writtenWith: ManagedObjectModel?, declared: Bool)
    }

    let model: ManagedObjectModel
    let stages: [MigrationStage]
    /// Whether this is a staged migration (whose stages must form a chain, see
    /// ``validate(storeVersionHashes:url:)``), rather than a lightweight one without stages.
    let isStaged: Bool
    /// The chain's versions, oldest first; the last is ``model``.
    let versions: [ManagedObjectModel]

    /// The chain to `model` through the stages of `staged` (nil: a lightweight migration).
    init(model: ManagedObjectModel, staged: StagedMigrationManager?) {
        self.model = model
        let stages = staged?.stages ?? []
        self.stages = stages
        isStaged = staged != nil
        if !model.earlierVersions.isEmpty || stages.isEmpty {
            versions = model.earlierVersions + [model]
        } else {
            var chain: [ManagedObjectModel] = []
            for stage in stages {
                for version in [stage.sourceModel, stage.destinationModel] where chain.last?.versionHash != version.versionHash {
                    chain.append(version)
                }
            }
            if chain.last?.versionHash != model.versionHash { chain.append(model) }
            versions = chain
        }
    }

    /// The next move for a store whose `Z_METADATA` holds `hashes` (not the model's), with
    /// the stages in `done` already run in this migration (none runs twice).
    func nextMove(from hashes: [String: Data], done: Set<Int>) -> Move {
        if let stage = stages.indices.first(where: { !done.contains($0) && stages[$0].sourceModel.matchesStoreVersionHashes(hashes) }) {
            return .stage(stage)
        }
        let written = versions.lastIndex { $0.matchesStoreVersionHashes(hashes) }
        let start = written.map { $0 + 1 } ?? 0
        let stageSources = Set(stages.indices.filter { !done.contains($0) }.map { stages[$0].sourceModel.versionHash })
        let target = versions.indices.first { $0 >= start && stageSources.contains(versions[$0].versionHash) } ?? versions.count - 1
        guard let written else { return .lightweight(steps: [versions[target]], writtenWith: nil, declared: false) }
        // A bundle's versions declare each change; the step from a stage's destination to
        // the next stage or the model is only inferred.
        return .lightweight(steps: Array(versions[(written + 1)...max(written + 1, target)]), writtenWith: versions[written],
                            declared: !model.earlierVersions.isEmpty)
    }
}
