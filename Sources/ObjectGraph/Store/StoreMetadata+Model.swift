import Foundation

// A store written here describes its own model, as Core Data keeps a compiled copy of its
// model in `Z_MODELCACHE`: the model's `contents` XML under one key of the metadata plist.
extension StoreMetadata {
    /// The metadata key holding the model's Xcode `contents` XML.
    static let modelKey = "ManagedRecordModel"

    /// Records `model` as the model this store was written with (on creation and after a
    /// migration), beside its version hashes.
    mutating func describe(_ model: ManagedObjectModel) {
        otherKeys[Self.modelKey] = model.contentsXML
    }

    /// The model's `contents` XML recorded by ``describe(_:)``; nil for a store written by
    /// Apple's Core Data or before stores described their model.
    var modelContentsXML: String? { otherKeys[Self.modelKey] as? String }
}
