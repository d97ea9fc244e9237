// libFuzzer target for the store opener (hostile files, docs/reliability.md): each input is a store file's bytes
// (libFuzzer mutates a real store: corrupt header, truncated pages, garbage in Z_METADATA's
// plist, broken tables). It is written to a temporary file and opened; when it opens, every
// object is fetched with its relationships prefetched and read. Every failure must be a
// thrown error: no crash, no hang.
//
// Fuzzing build (docs/reliability.md):
//   swift build -c release --product StoreFileFuzzer --scratch-path .build-fuzz \
//     -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DFUZZING
//   .build/debug/StoreFileFuzzer seed corpus/          # a real store as the seed input
//   .build-fuzz/release/StoreFileFuzzer -max_total_time=60 corpus/
// Plain build (`swift build`): `seed <folder>` writes the seed store; other arguments are
// files replayed through the same entry point.
import Foundation
import LibFuzzerDriver
import ObjectGraph

@_cdecl("LLVMFuzzerTestOneInput")
public func storeFileFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runStoreInput(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if FUZZING
/// The entry point SwiftPM links `main` to: libFuzzer's driver, with this target's input.
@_cdecl("StoreFileFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { storeFileFuzzerTestOneInput($0, $1) }
}
#else
/// The plain build: `seed <folder>` writes the seed store; other arguments are files replayed.
@main
enum StoreFileReplay {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "seed", arguments.count == 2 {
            try writeSeed(to: URL(fileURLWithPath: arguments[1]))
            print("seed written to \(arguments[1])/seed.sqlite")
            return
        }
        for path in arguments {
            guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
            data.withUnsafeBytes { runStoreInput($0.bindMemory(to: UInt8.self)) }
            print("ran \(path)")
        }
    }
}
#endif
