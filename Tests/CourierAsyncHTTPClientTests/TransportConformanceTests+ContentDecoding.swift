import Courier
import CourierGzip
import CourierTestSupport
import Foundation
import Testing

/// `TransferConfiguration.decodesContent` is one setting for every transport:
/// what is asked for, what is decoded, and the head that says so.
/// `URLSessionTransport` takes compressed answers only when opted in (see
/// `URLSessionTransportTests` for its default, which refuses them), so here it
/// is.
extension TransportConformanceTests {
    static let plainText = Data((1...4_000).map { "line \($0) of a compressible body\n" }.joined().utf8)

    /// Serves `body` with `Content-Encoding: encoding` at `path`, in pieces of
    /// 1,000 bytes, with its length.
    static func installEncoded(_ body: Data, encoding: String, at path: String, on server: LoopbackServer) {
        server.route(path) { _ in
            LoopbackResponse(headers: [("Content-Type", "text/plain"), ("Content-Encoding", encoding),
                                       ("Content-Length", String(body.count))],
                             body: .streamed { writer in
                                 var offset = 0
                                 while offset < body.count {
                                     try await writer.write(body.subdata(in: offset..<min(offset + 1_000, body.count)))
                                     offset += 1_000
                                 }
                             })
        }
    }

    static func encoded(_ text: Data, _ encoding: String) throws -> Data {
        try Gzip.compress(text, format: encoding == "deflate" ? .zlib : .gzip)
    }

    @Test(arguments: TransportKind.networked, ["gzip", "x-gzip", "deflate"])
    func anEncodedBodyArrivesDecodedTheSameOnEveryTransport(kind: TransportKind, encoding: String) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            Self.installEncoded(try Self.encoded(Self.plainText, encoding), encoding: encoding, at: "/encoded", on: server)
            let response = try await provider.request(TestTarget(server.baseURL, path: "/encoded"))
            #expect(response.data == Self.plainText)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(Self.plainText.count))
            #expect(server.requests(to: "/encoded").map { $0.header("Accept-Encoding") } == ["gzip, deflate"])
            // Asked for where the bytes leave: the request the plugins saw,
            // and the response carries, holds only what the target set.
            #expect(response.request?.allHTTPHeaderFields ?? [:] == [:])
        }
    }

    /// Read chunk by chunk (progress, a download): the same bytes and head.
    @Test(arguments: TransportKind.networked)
    func anEncodedBodyReadInChunksArrivesDecoded(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            Self.installEncoded(try Self.encoded(Self.plainText, "gzip"), encoding: "gzip", at: "/encoded", on: server)
            let response = try await provider.request(TestTarget(server.baseURL, path: "/encoded"),
                                                      options: RequestOptions(progress: { _ in }))
            #expect(response.data == Self.plainText)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(Self.plainText.count))
        }
    }

    /// A streamed call asks for `identity`; a server that compresses anyway
    /// is decoded as the caller reads, by the same rule.
    @Test(arguments: TransportKind.networked)
    func aStreamASeverEncodesAnywayArrivesDecoded(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            Self.installEncoded(try Self.encoded(Self.plainText, "gzip"), encoding: "gzip", at: "/encoded", on: server)
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/encoded"))
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == nil)
            var lines = 0
            for try await _ in response.lines() { lines += 1 }
            #expect(lines == 4_000)
            #expect(server.requests(to: "/encoded").map { $0.header("Accept-Encoding") } == ["identity"])
        }
    }

    /// A part that decodes to far more than the read-ahead (8 MiB from about
    /// 40 KB, sent in one write) is handed on in chunks: every byte arrives,
    /// in order, and the stream ends. When the reader lags (which the test
    /// cannot force: a reader that keeps up takes each chunk as it is
    /// decoded), the rest of the part is decoded only once the reader has
    /// taken what waits; with that rest dropped, this test failed in a run of
    /// the whole AsyncHTTPClient suite and passed alone.
    @Test(arguments: TransportKind.networked)
    func aSmallPartThatDecodesToMegabytesArrivesWholeAsAStream(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            var plain = Data()
            for block in 0..<2_048 {
                plain.append(Data("block \(block)\n".utf8))
                plain.append(Data(repeating: UInt8(ascii: "x"), count: 4_096 - 1))
            }
            let encoded = try Self.encoded(plain, "gzip")
            server.route("/expanding") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                                 body: .streamed { writer in try await writer.write(encoded) })
            }
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/expanding"))
            let received = try await response.collect(upTo: 16 << 20)
            #expect(received.count == plain.count)
            #expect(received == plain)
        }
    }

    /// A decoded stream ends as a plain one does: a reader that leaves closes
    /// the connection, though the server never ends its body.
    @Test(arguments: TransportKind.networked)
    func aReaderThatLeavesADecodedStreamClosesTheConnection(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            let never = Gate()
            let firstMember = try Self.encoded(Data("data: only\n\n".utf8), "gzip")
            server.route("/events") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream"), ("Content-Encoding", "gzip")],
                                 body: .streamed { writer in
                                     try await writer.write(firstMember)
                                     await never.wait()
                                 })
            }
            let target = TestTarget(server.baseURL, path: "/events", timeout: 600)
            var events: [String] = []
            for try await event in try await provider.stream(target).serverSentEvents {
                events.append(event.data)
                break
            }
            #expect(events == ["only"])
            try await StreamingConformanceTests.waitUntilTheServerSeesTheClose(of: "/events", on: server)
            never.open()
        }
    }

    /// Decoding off: requests ask for `identity`, and a body encoded anyway
    /// arrives as sent, with its header, except where the client cannot be
    /// told (URLSession on Linux: libcurl decodes always, and the head says
    /// it did).
    @Test(arguments: TransportKind.networked)
    func withDecodingOffRequestsAskForIdentity(kind: TransportKind) async throws {
        try await kind.withProvider(transfer: TransferConfiguration(decodesContent: false), decodesCompressed: true) { provider, server in
            let compressed = try Self.encoded(Self.plainText, "gzip")
            Self.installEncoded(compressed, encoding: "gzip", at: "/encoded", on: server)
            let response = try await provider.request(TestTarget(server.baseURL, path: "/encoded"))
            #expect(server.requests(to: "/encoded").map { $0.header("Accept-Encoding") } == ["identity"])
            #if os(Linux)
            let libcurlDecodes = kind == .urlSession
            #else
            let libcurlDecodes = false
            #endif
            #expect(response.data == (libcurlDecodes ? Self.plainText : compressed))
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == (libcurlDecodes ? nil : "gzip"))
        }
    }

    /// A target that names its own `Accept-Encoding` keeps it.
    @Test(arguments: TransportKind.networked)
    func aTargetsOwnAcceptEncodingIsSentAsItIs(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/200", headers: ["Accept-Encoding": "gzip"]))
            #expect(server.requests(to: "/status/200").map { $0.header("Accept-Encoding") } == ["gzip"])
        }
    }

    /// Bytes that are not what their header says fail the call, on every
    /// transport, instead of reaching a mapper as text.
    @Test(arguments: TransportKind.networked)
    func aCorruptEncodedBodyIsAFailure(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            var corrupt = try Self.encoded(Self.plainText, "gzip")
            corrupt.replaceSubrange(20..<60, with: Data(repeating: 0xFF, count: 40))
            Self.installEncoded(corrupt, encoding: "gzip", at: "/corrupt", on: server)
            let error = await CourierAsyncHTTPClientTests.failure(of: TestTarget(server.baseURL, path: "/corrupt"), on: provider)
            guard case .invalidResponse(let underlying as URLError)? = error, underlying.code == .cannotDecodeContentData else {
                Issue.record("expected invalidResponse(cannotDecodeContentData), got \(String(describing: error))")
                return
            }
            #expect("\(error!)".contains("could not be decoded from its Content-Encoding"))
            #expect("\(error!)".contains("decodesContent"))
        }
    }

    /// A gzip stream cut before its end, though every byte its length
    /// announced arrived, fails on AsyncHTTPClient. libcurl does not check
    /// that a stream it decodes ended, so URLSession on Linux hands over what
    /// it decoded, a prefix of the body; the documentation of
    /// `decodesContent` says so.
    @Test(arguments: TransportKind.networked)
    func anEncodedBodyCutShortIsAFailureWhereTheClientChecks(kind: TransportKind) async throws {
        try await kind.withProvider(decodesCompressed: true) { provider, server in
            let whole = try Self.encoded(Self.plainText, "gzip")
            Self.installEncoded(whole.prefix(whole.count - 100), encoding: "gzip", at: "/cut", on: server)
            let result = await Result(catching: { try await provider.request(TestTarget(server.baseURL, path: "/cut")) })
            #if os(Linux)
            if kind == .urlSession {
                let data = try result.get().data
                #expect(data.count < Self.plainText.count)
                #expect(Self.plainText.starts(with: data))
                return
            }
            #endif
            guard case .failure(let error) = result, case .invalidResponse(let underlying as URLError) = error as? NetworkError,
                  underlying.code == .cannotDecodeContentData else {
                Issue.record("expected invalidResponse(cannotDecodeContentData), got \(result)")
                return
            }
            #expect("\(error)".contains("ends early"))
        }
    }
}
