import Courier
import CourierAsyncHTTPClient
import Foundation

/// Item 6d: how soon the server sees the connection close after a streamed
/// call's reader leaves its loop. A 10 GB body is streamed; the reader takes
/// one chunk and breaks; the clock runs from the break to the server's
/// `channelInactive`. Seven calls per transport, each on a fresh provider.
struct CloseBenchmark {
    let baseURL: URL
    let quick: Bool

    func run() async throws -> [String] {
        var lines: [String] = []
        for name in ["URLSession", "AsyncHTTPClient"] {
            var milliseconds: [Double] = []
            for _ in 0..<(quick ? 3 : 7) {
                let transport: any Transport = name == "URLSession" ? URLSessionTransport() : AsyncHTTPClientTransport()
                let provider = Provider<URLTarget>(transport: transport)
                let response = try await provider.stream(URLTarget(url: baseURL.appendingPathComponent("stream/10000000000")))
                var left: UInt64 = 0
                for try await _ in response.body {
                    left = DispatchTime.now().uptimeNanoseconds
                    break
                }
                guard let closed = await StreamCloses.first(after: left, within: 10) else {
                    throw ChildFailure(side: name, output: "the server saw no close within 10 s")
                }
                milliseconds.append(Double(closed - left) / 1e6)
                if let transport = transport as? AsyncHTTPClientTransport { try await transport.shutdown() }
            }
            let sorted = milliseconds.sorted()
            lines.append("close after break, \(name): median \(String(format: "%.2f", median(sorted))) ms, "
                + "slowest \(String(format: "%.2f", sorted.last ?? 0)) ms of \(sorted.count)")
        }
        return lines
    }
}
