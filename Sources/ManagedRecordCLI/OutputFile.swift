import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output, or a file created for the export: owner-only (0600) when it is new, as
/// every file the library creates, and never a store.
struct OutputFile {
    let handle: FileHandle
    let ownsHandle: Bool

    static var standardOutput: OutputFile { OutputFile(handle: .standardOutput, ownsHandle: false) }

    init(handle: FileHandle, ownsHandle: Bool) {
        self.handle = handle
        self.ownsHandle = ownsHandle
    }

    /// Creates (or empties) the file at `path`, after checking that it is neither the store
    /// the command reads (`store`) nor any SQLite store or store companion: nothing is
    /// written to a path that is refused. A new file is `0600` unless `keepsUmask`; an
    /// existing one keeps its mode.
    ///
    /// - Throws: ``CLIError`` `.outputIsAStore`, or `.other` when the file cannot be created.
    init(path: String, readingStore store: URL, keepsUmask: Bool) throws {
        try Self.refuseStore(at: path, readingStore: store)
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, keepsUmask ? 0o666 : 0o600)
        if descriptor >= 0, !keepsUmask {
            _ = fchmod(descriptor, 0o600)   // whatever the umask, as the library's files
        } else if descriptor < 0, errno == EEXIST {
            descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CLIError("cannot create the output file \(path) (\(reason)): check that its folder exists and can be written")
        }
        self.init(handle: FileHandle(fileDescriptor: descriptor, closeOnDealloc: true), ownsHandle: true)
    }

    func write(_ data: Data) { handle.write(data) }

    func close() throws { if ownsHandle { try handle.close() } }

    // MARK: Refusing a store

    /// The suffixes of the files SQLite keeps beside a store.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Throws unless `path` is safe to write over: not the store read (by any name: a link,
    /// `./`, another spelling), not one of its companions, not a file that holds a SQLite
    /// database, journal or WAL, and not the companion of another store.
    static func refuseStore(at path: String, readingStore store: URL) throws {
        let output = canonicalPath(path)
        for suffix in [""] + companionSuffixes {
            let file = store.path + suffix
            if output == canonicalPath(file) || sameFile(path, file) {
                throw CLIError(.outputIsAStore, "the output \(path) is \(suffix.isEmpty ? "the store" : "the store's \(suffix) file") this command reads; writing it would destroy the store. Nothing was written: give --output another file")
            }
        }
        if let kind = sqliteFileKind(at: path) {
            throw CLIError(.outputIsAStore, "the output \(path) is \(kind); writing it would destroy it. Nothing was written: give --output another file")
        }
        for suffix in companionSuffixes where path.hasSuffix(suffix) {
            let base = String(path.dropLast(suffix.count))
            if sqliteFileKind(at: base) == "a SQLite database" {
                throw CLIError(.outputIsAStore, "the output \(path) is the \(suffix) file of the store \(base); writing it would corrupt that store. Nothing was written: give --output another file")
            }
        }
    }

    /// The path with links in its folders and itself resolved, `.` and `..` removed.
    private static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether both paths name one existing file (the same device and inode).
    private static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// What SQLite file the file at `path` is, by its first bytes: a database, a WAL or a
    /// rollback journal; nil for anything else (or nothing).
    private static func sqliteFileKind(at path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 16) else { return nil }
        let bytes = [UInt8](head)
        if bytes == Array("SQLite format 3\0".utf8) { return "a SQLite database" }
        if bytes.count >= 4, bytes[0] == 0x37, bytes[1] == 0x7F, bytes[2] == 0x06, bytes[3] & 0xFE == 0x82 { return "a SQLite write-ahead log (-wal)" }
        if bytes.count >= 8, bytes.prefix(8) == [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7] { return "a SQLite rollback journal (-journal)" }
        return nil
    }
}
