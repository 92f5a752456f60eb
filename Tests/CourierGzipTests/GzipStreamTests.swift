import Courier
import CourierAsyncHTTPClient
import CourierGzip
import CourierTestSupport
import Foundation
import Testing

/// Streamed calls through the plugin, on a provider that leaves bodies as they
/// arrived (`decodesContent` off, on AsyncHTTPClient, which then does not
/// decode): the body is decompressed as the caller reads it, within the
/// plugin's limit.
@Suite struct GzipStreamTests {
    struct Row: Decodable, Sendable, Equatable {
        let n: Int
    }

    static let rows = (1...2_000).map { Row(n: $0) }
    static let text = Data(rows.map { "{\"n\":\($0.n)}\n" }.joined().utf8)

    /// Serves `body` with `Content-Encoding: gzip`, in pieces of 1,000 bytes.
    static func installGzipped(_ body: Data, on server: LoopbackServer) {
        server.route("/rows") { _ in
            LoopbackResponse(headers: [("Content-Type", "application/x-ndjson"), ("Content-Encoding", "gzip")],
                             body: .streamed { writer in
                                 var offset = 0
                                 while offset < body.count {
                                     try await writer.write(body.subdata(in: offset..<min(offset + 1_000, body.count)))
                                     offset += 1_000
                                 }
                             })
        }
    }

    /// Bodies handed over as they arrived, for the plugin to decode.
    static let encodedBodies = TransferConfiguration(decodesContent: false)

    func withProvider(
        plugins: [any Plugin],
        _ body: @escaping @Sendable (Provider<TestTarget>, LoopbackServer) async throws -> Void
    ) async throws {
        try await withServer { server in
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { transport in
                try await body(Provider<TestTarget>(transport: transport, plugins: plugins, transfer: Self.encodedBodies), server)
            }
        }
    }

    @Test func aGzippedStreamIsDecodedAsItIsRead() async throws {
        try await withProvider(plugins: [GzipPlugin()]) { provider, server in
            Self.installGzipped(try Gzip.compress(Self.text), on: server)
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/rows"))
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == nil)
            var rows: [Row] = []
            for try await row in response.jsonLines(of: Row.self) { rows.append(row) }
            #expect(rows == Self.rows)
        }
    }

    /// Without the plugin the caller gets the bytes as they arrived, and the
    /// header that says so.
    @Test func withoutThePluginTheStreamArrivesCompressed() async throws {
        try await withProvider(plugins: []) { provider, server in
            let compressed = try Gzip.compress(Self.text)
            Self.installGzipped(compressed, on: server)
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/rows"))
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
            #expect(try await response.collect(upTo: 1 << 20) == compressed)
        }
    }

    /// A gzip stream without its end (the trailer cut off) is an error at the
    /// end of the body, after every row it held was delivered.
    @Test func aStreamCutShortFailsAtItsEnd() async throws {
        try await withProvider(plugins: [GzipPlugin()]) { provider, server in
            Self.installGzipped(try Gzip.compress(Self.text).dropLast(8), on: server)
            var rows = 0
            do {
                for try await _ in try await provider.stream(TestTarget(server.baseURL, path: "/rows")).jsonLines(of: Row.self) {
                    rows += 1
                }
                Issue.record("expected the cut to be an error")
            } catch let error as NetworkError {
                guard case .plugin(_, let failure as GzipPlugin.Failure) = error,
                      case .decompressionFailed(_, _, .truncated) = failure else {
                    Issue.record("expected decompressionFailed(truncated), got \(error)")
                    return
                }
            }
            #expect(rows == Self.rows.count)
        }
    }

    /// 1 GB of zeros in about 1 MB stops at the plugin's limit: no piece of
    /// the output grows past it.
    @Test func aBombStopsAtTheLimit() async throws {
        try await withFaultyServer { faulty in
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { transport in
                let plugin = GzipPlugin(.init(maximumDecompressedSize: 8 << 20))
                let provider = Provider<TestTarget>(transport: transport, plugins: [plugin], transfer: Self.encodedBodies)
                var largest = 0
                do {
                    for try await chunk in try await provider.stream(TestTarget(faulty.url(.gzipBomb), path: "")).body {
                        largest = max(largest, chunk.count)
                    }
                    Issue.record("expected the bomb to stop at the limit")
                } catch let error as NetworkError {
                    guard case .plugin(_, let failure as GzipPlugin.Failure) = error,
                          case .decompressionFailed(_, _, .sizeLimitExceeded(let limit)) = failure else {
                        Issue.record("expected decompressionFailed(sizeLimitExceeded), got \(error)")
                        return
                    }
                    #expect(limit == 8 << 20)
                }
                #expect(largest <= 8 << 20)
            }
        }
    }
}
