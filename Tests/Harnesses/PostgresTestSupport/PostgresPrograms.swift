import Foundation

/// Where PostgreSQL's programs are: the newest of Debian's `/usr/lib/postgresql/VERSION/bin`
/// folders that has them, else the folders of `PATH` (Homebrew, other distributions).
enum PostgresPrograms {
    /// `initdb` and `pg_ctl`, from one folder, to run a server of one version.
    static func serverPrograms() throws(PostgresTestServerError) -> (initdb: String, pgCtl: String) {
        let folders = candidateFolders()
        for folder in folders {
            let initdb = folder + "/initdb", pgCtl = folder + "/pg_ctl"
            if isExecutable(initdb) && isExecutable(pgCtl) { return (initdb, pgCtl) }
        }
        let missing = folders.contains { isExecutable($0 + "/initdb") } ? "pg_ctl" : "initdb"
        throw .notInstalled(program: missing, searched: searchedDescription(folders))
    }

    /// `psql`, preferring the newest version's own over Debian's `/usr/bin/psql` wrapper.
    static func psql() throws(PostgresTestServerError) -> String {
        let folders = candidateFolders()
        if let folder = folders.first(where: { isExecutable($0 + "/psql") }) { return folder + "/psql" }
        throw .notInstalled(program: "psql", searched: searchedDescription(folders))
    }

    /// `name` in /usr/sbin, /sbin, /usr/bin, /bin or a folder of PATH, if it is an executable there.
    static func systemProgram(_ name: String) -> String? {
        (["/usr/sbin", "/sbin", "/usr/bin", "/bin"] + pathFolders())
            .map { $0 + "/" + name }
            .first(where: isExecutable)
    }

    private static let debianRoot = "/usr/lib/postgresql"

    /// Debian's version folders, newest first, then PATH's folders.
    private static func candidateFolders() -> [String] {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debianRoot)) ?? []
        let newestFirst = versions
            .map { (name: $0, key: $0.split(separator: ".").map { Int($0) ?? -1 }) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
            .reversed()
            .map { "\(debianRoot)/\($0.name)/bin" }
        return newestFirst + pathFolders()
    }

    private static func pathFolders() -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }

    private static func searchedDescription(_ folders: [String]) -> [String] {
        folders.contains { $0.hasPrefix(debianRoot) } ? folders : ["\(debianRoot)/*/bin"] + folders
    }

    private static func isExecutable(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}
