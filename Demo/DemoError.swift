/// An error of the demo's own making (not the library's), with what went wrong.
struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
