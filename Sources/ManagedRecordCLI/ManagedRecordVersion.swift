/// The version `managedrecord --version` prints: the package's next release (no version is
/// tagged yet; CHANGELOG.md).
enum ManagedRecordVersion {
    static let current = "0.4.0-dev"
}
