// libFuzzer target for the predicate parser, binder, SQL compiler and in-memory evaluator
// (docs/reliability.md, Fuzzing). Each input is a format string; it parses and runs against an in-memory store
// with a pending insert (so both the SQL and the in-memory side evaluate it), or throws.
//
// Fuzzing build (docs/reliability.md):
//   swift build -c release --product PredicateFuzzer --scratch-path .build-fuzz \
//     -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DFUZZING
//   .build-fuzz/release/PredicateFuzzer -max_total_time=60 corpus/
// Plain build (`swift build`): replays the files named as arguments through the same entry
// point, so an input the fuzzer saved can be rerun under a debugger.
import Foundation
import LibFuzzerDriver
import ObjectGraph

@_cdecl("LLVMFuzzerTestOneInput")
public func predicateFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runPredicateInput(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if FUZZING
/// The entry point SwiftPM links `main` to: libFuzzer's driver, with this target's input.
@_cdecl("PredicateFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { predicateFuzzerTestOneInput($0, $1) }
}
#else
/// The plain build: replays the files named as arguments.
@main
enum PredicateReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
            data.withUnsafeBytes { runPredicateInput($0.bindMemory(to: UInt8.self)) }
            print("ran \(path)")
        }
    }
}
#endif
