import Foundation

// Waiting for something another thread or process does: never a sleep that hopes it is
// done, but the event itself, with a bound past which the demo stops and says what it
// waited for (a check that fails, as every other check does).

/// The first element of `stream` that `match` accepts, waited for at most `seconds`.
/// Make the stream before the event happens: a stream hears what comes after it is made.
@MainActor
func first<Element: Sendable>(of stream: AsyncStream<Element>, within seconds: Int, _ what: String,
                              where match: @escaping @Sendable (Element) -> Bool = { _ in true },
                              line: Int = #line) async -> Element {
    let waiter = Task { () -> Element? in
        for await element in stream where match(element) { return element }
        return nil
    }
    let bound = Task {
        try await Task.sleep(for: .seconds(seconds))
        waiter.cancel()
    }
    let element = await waiter.value
    bound.cancel()
    guard let element else {
        expect(false, "\(what) did not come within \(seconds) s", line: line)
        fatalError("unreachable: expect exits")
    }
    return element
}
