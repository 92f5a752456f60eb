import Courier
import CourierLoopback
import Foundation

// `swift run Demo` starts the demo API on 127.0.0.1 inside this process and
// walks through Courier against it. `swift run Demo --base-url URL` talks to a
// server of your own that serves the same routes instead.

let arguments = CommandLine.arguments
var server: LoopbackServer?
let baseURL: URL
if let index = arguments.firstIndex(of: "--base-url"), index + 1 < arguments.count,
   let url = URL(string: arguments[index + 1]) {
    baseURL = url
} else {
    let loopback = try await LoopbackServer.start()
    DemoAPI.install(on: loopback)
    server = loopback
    baseURL = loopback.baseURL
}

let demo = DemoContext(baseURL: baseURL, server: server)
print("Courier demo against \(baseURL.absoluteString)")

await runCoreSection(demo)
await runMappersSection(demo)
await runPluginsSection(demo)
await runAuthSection(demo)
await runCacheSection(demo)

await server?.shutdown()
print("\nDone.")
