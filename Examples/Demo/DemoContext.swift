import Courier
import CourierLoopback
import Foundation

/// What every part of the demo shares: where the API is, the in-process
/// server (when the demo runs its own), and how to print.
struct DemoContext: Sendable {
    /// The API's base URL: the in-process server's, or `--base-url`.
    let baseURL: URL
    /// The in-process server, or `nil` with `--base-url`.
    let server: LoopbackServer?

    /// Prints a section heading.
    func section(_ title: String) {
        print("\n== \(title) " + String(repeating: "=", count: max(0, 66 - title.count)))
    }

    /// Prints one step of the walk-through.
    func say(_ text: String) {
        print("  " + text)
    }

    /// Prints how many requests the in-process server has seen for `path`.
    func serverHits(_ path: String) -> String {
        server.map { "server hits for \(path): \($0.hits(path))" } ?? "(hit counts need the in-process server)"
    }

    /// Runs `body`, printing the `NetworkError` it throws instead of stopping
    /// the demo.
    func attempt(_ label: String, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch {
            say("\(label) failed: \(error)")
        }
    }
}
