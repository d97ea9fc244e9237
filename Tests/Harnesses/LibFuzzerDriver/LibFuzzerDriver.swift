// The fuzz targets' way into libFuzzer (docs/reliability.md, Fuzzing). SwiftPM links an
// executable's `main` to `<Module>_main`, so a fuzz target defines that function (in its
// fuzzing build, `-DFUZZING`) and calls `runLibFuzzer` with its per-input callback.
#if FUZZING
/// libFuzzer's driver (compiler-rt), which runs `callback` on each input it generates.
/// `@_silgen_name`: a C function with only pointer and int arguments, whose Swift calling
/// convention passes them in the same registers on the platforms Swift runs on.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// Runs libFuzzer with the process's arguments and `callback` for each input; returns the
/// exit status.
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector, callback)
}
#endif
