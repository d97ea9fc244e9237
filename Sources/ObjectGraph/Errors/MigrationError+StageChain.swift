import Foundation

extension MigrationError {
    /// Where the stages of a staged migration stop forming a chain from the store's version
    /// to the model (``MigrationError/Code/invalidStages``), found before anything is written.
    ///
    /// Versions are named by their ``ManagedObjectModel/versionHash`` (compare with your
    /// models' to tell which one is meant); the description shows the first 8 hexadecimal
    /// digits of each.
    ///
    /// ```swift
    /// } catch let error as MigrationError where error.code == .invalidStages {
    ///     print(error.stageChain!)   // stage 2 of 2 ("to v3") starts from version 1a2b3c4d, but stage 1 ends at 5e6f7a8b (a fork: ...)
    /// }
    /// ```
    public struct StageChainProblem: Sendable, Hashable, CustomStringConvertible {
        /// What breaks the chain.
        public enum Kind: String, Sendable, Hashable {
            /// The staged migration lists no stages, and the store needs migrating.
            case noStages
            /// A stage does not start where the stage before it ends.
            case gap
            /// A stage starts from the same version as an earlier stage, which leads elsewhere.
            case fork
            /// A stage leads back to a version the chain has already passed (or, in a model
            /// bundle's chain, goes back to an earlier version of the bundle).
            case cycle
            /// The last stage ends at a version that is not the model's: the store would be
            /// left at a version the app cannot open.
            case doesNotEndAtModel
            /// No stage starts from the store's version (and the store is not at the model's).
            case storeVersionNotInChain
            /// With a model read from an `.xcdatamodeld` bundle: a stage starts or ends at a
            /// version that is not one of the bundle's.
            case outsideBundle
        }

        /// What breaks the chain.
        public let kind: Kind
        /// The stage concerned, as an index into ``StagedMigrationManager/stages``; nil when
        /// no single stage is (``Kind/noStages``, ``Kind/storeVersionNotInChain``).
        public let stage: Int?
        /// How many stages there are.
        public let stageCount: Int
        /// That stage's label (empty when it has none).
        public let label: String
        /// The version the chain needs at that point: the previous stage's destination (a gap
        /// or fork), the model's (``Kind/doesNotEndAtModel``), the version reached again (a
        /// cycle), the first stage's source (``Kind/storeVersionNotInChain``); nil for
        /// ``Kind/outsideBundle``.
        public let expectedVersionHash: Data?
        /// The version found there: the stage's source (a gap or fork), its destination (a
        /// cycle, ``Kind/doesNotEndAtModel``), the store's (``Kind/storeVersionNotInChain``),
        /// the one outside the bundle (``Kind/outsideBundle``).
        public let foundVersionHash: Data?
        /// For a fork: the earlier stage that starts from the same version.
        public let otherStage: Int?

        init(_ kind: Kind, stage: Int? = nil, of stages: [MigrationStage], expected: Data? = nil, found: Data? = nil, otherStage: Int? = nil) {
            self.kind = kind
            self.stage = stage
            stageCount = stages.count
            label = stage.map { stages[$0].label } ?? ""
            expectedVersionHash = expected
            foundVersionHash = found
            self.otherStage = otherStage
        }

        /// A version as the description names it: the first 8 hexadecimal digits of its hash.
        static func name(_ hash: Data?) -> String {
            guard let hash else { return "?" }
            return hash.prefix(4).map { String(format: "%02x", $0) }.joined()
        }

        public var description: String {
            let expected = Self.name(expectedVersionHash), found = Self.name(foundVersionHash)
            let named = stage.map { "stage \($0 + 1) of \(stageCount)\(label.isEmpty ? "" : " (\"\(label)\")")" } ?? ""
            switch kind {
            case .noStages:
                return "the staged migration lists no stages, but the store is at version \(found), not at the model's \(expected); give the stages from the store's version to the model (or pass no staged migration for a lightweight one)"
            case .gap:
                return "\(named) starts from version \(found), but stage \(stage ?? 0) ends at version \(expected): the stages leave a gap; each stage must start where the stage before it ends"
            case .fork:
                return "\(named) starts from version \(found), as stage \((otherStage ?? 0) + 1) does, but stage \(stage ?? 0) ends at version \(expected): the stages fork; list one path from the store's version to the model"
            case .cycle:
                return "\(named) leads to version \(found), which the chain has already passed: the stages form a cycle; list each version once, oldest first"
            case .doesNotEndAtModel:
                return "\(named) is the last and ends at version \(found), not at the model's version \(expected): the store would be left at a version the app's model cannot open; end the chain with a stage whose destination is the model the store is opened with"
            case .outsideBundle:
                return "\(named) starts or ends at version \(found), which is not a version of the model's bundle: give stages between the bundle's versions (ManagedObjectModel.versions(contentsOf:))"
            case .storeVersionNotInChain:
                return "the store is at version \(found), and no stage starts from it (the first stage starts from \(expected)): add the stages from the store's version, or open the store with the model that wrote it"
            }
        }
    }
}
