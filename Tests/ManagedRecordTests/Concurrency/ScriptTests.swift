import Foundation
import XCTest

/// `AsyncScriptCheck` is a script as users write them: top-level code with several `await`s
/// using the view context, the class-level helpers, `perform`, `fetchInBackground`, child
/// tasks, a detached task and a thread, with the shared/API.md and README examples. It
/// checks its own results and exits non-zero when one is wrong.
final class ScriptTests: XCTestCase {
    func testATopLevelScriptWithAwaitsRunsToTheEndAndEveryCheckPasses() throws {
        let outcome = try BuiltExecutable("AsyncScriptCheck").run()
        XCTAssertFalse(outcome.stoppedBySignal, "the script stopped:\n\(outcome.output)")
        XCTAssertEqual(outcome.status, 0, outcome.output)
        let closing = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(closing.hasPrefix("AsyncScriptCheck: ") && closing.hasSuffix(" passed, 0 failed"), outcome.output)
        XCTAssertFalse(outcome.output.contains("FAIL"), outcome.output)
    }
}
