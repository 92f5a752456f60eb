import Courier
import CourierGzip
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The plugin against the loopback server: uploads the server gunzips,
/// responses in every encoding, limits and corrupt bodies.
struct GzipPluginTests {
    /// A target that opts in to compressed bodies.
    struct Upload: GzipRequestCompressible {
        var baseURL: URL
        var path = "/gunzip"
        var method: HTTPMethod = .post
        var body: Data
        var task: RequestTask { .requestData(body) }
        var headers: [String: String]? { ["Content-Type": "application/json"] }
    }

    /// Gunzips what arrives (with the public API) and answers with the bytes
    /// and how they came.
    static func installGunzip(on server: LoopbackServer) {
        server.route("/gunzip") { request in
            let encoding = request.header("Content-Encoding") ?? "none"
            let body = encoding == "gzip" ? (try? Gzip.decompress(request.body)) : request.body
            guard let body else { return .text("could not gunzip", status: 400) }
            return LoopbackResponse(
                headers: [("X-Received-Encoding", encoding), ("X-Received-Length", String(request.body.count))],
                body: .data(body)
            )
        }
    }

    /// Answers `original` encoded as the query asks: gzip, zlib or raw.
    static func installEncoded(on server: LoopbackServer, original: Data) {
        server.route("/encoded") { request in
            let format: Gzip.Format = switch request.query("as") {
            case "zlib": .zlib
            case "raw": .rawDeflate
            default: .gzip
            }
            let encoding = format == .gzip ? "gzip" : "deflate"
            let body = (try? Gzip.compress(original, format: format)) ?? Data()
            return LoopbackResponse(headers: [("Content-Encoding", encoding)], body: .data(body))
        }
    }

    // MARK: - Requests

    @Test func optedInBodyIsCompressedAndTheServerGetsItBack() async throws {
        try await withServer { server in
            Self.installGunzip(on: server)
            let provider = Provider<Upload>(plugins: [GzipPlugin()])
            let response = try await provider.request(Upload(baseURL: server.baseURL, body: GzipTests.text))
            #expect(response.value(forHTTPHeaderField: "X-Received-Encoding") == "gzip")
            let sent = try #require(Int(response.value(forHTTPHeaderField: "X-Received-Length") ?? ""))
            #expect(sent < GzipTests.text.count / 10, "\(sent) bytes on the wire for \(GzipTests.text.count)")
            #expect(response.data == GzipTests.text, "the server gunzipped exactly what was sent")
        }
    }

    @Test func smallBodiesAndTargetsThatDidNotOptInGoAsTheyAre() async throws {
        try await withServer { server in
            Self.installGunzip(on: server)
            let provider = Provider<Upload>(plugins: [GzipPlugin(.init(compressionThreshold: 1024))])
            let small = try await provider.request(Upload(baseURL: server.baseURL, body: Data(repeating: 65, count: 1023)))
            #expect(small.value(forHTTPHeaderField: "X-Received-Encoding") == "none")

            let plain = Provider<TestTarget>(plugins: [GzipPlugin()])
            let target = TestTarget(server.baseURL, path: "/gunzip", method: .post, task: .requestData(GzipTests.text))
            let notOptedIn = try await plain.request(target)
            #expect(notOptedIn.value(forHTTPHeaderField: "X-Received-Encoding") == "none")
            #expect(notOptedIn.data == GzipTests.text)

            let options = RequestOptions().setting(GzipPlugin.CompressRequestBody.self, to: true)
            let perCall = try await plain.request(target, options: options)
            #expect(perCall.value(forHTTPHeaderField: "X-Received-Encoding") == "gzip")
            #expect(perCall.data == GzipTests.text)
        }
    }

    // MARK: - Responses

    @Test(arguments: ["gzip", "zlib", "raw"])
    func encodedResponsesAreDecoded(encoding: String) async throws {
        try await withServer { server in
            Self.installEncoded(on: server, original: GzipTests.text)
            let provider = Provider<TestTarget>(transport: EncodedBodyTransport(), plugins: [GzipPlugin()])
            let response = try await provider.request(TestTarget(server.url("/encoded?as=\(encoding)"), path: ""))
            #expect(response.data == GzipTests.text)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil, "the header goes once the body is decoded")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(GzipTests.text.count))
        }
    }

    @Test func theLeadingDotFactoryMakesTheSamePlugin() async throws {
        try await withServer { server in
            Self.installEncoded(on: server, original: GzipTests.text)
            let plugins: [any Plugin] = [.gzip()]
            let provider = Provider<TestTarget>(transport: EncodedBodyTransport(), plugins: plugins)
            let response = try await provider.request(TestTarget(server.url("/encoded?as=gzip"), path: ""))
            #expect(response.data == GzipTests.text)
        }
    }

    @Test func bodiesURLSessionAlreadyDecodedAreNotDecodedTwice() async throws {
        try await withServer { server in
            // The original is itself gzip data: decoding twice would unpack it.
            let original = try Gzip.compress(GzipTests.text)
            Self.installEncoded(on: server, original: original)
            let provider = Provider<TestTarget>(transport: URLSessionTransport(decodesCompressedResponses: true),
                                                plugins: [GzipPlugin()])
            let response = try await provider.request(TestTarget(server.url("/encoded?as=gzip"), path: ""))
            #expect(response.data == original)
        }
    }

    @Test func aBombResponseFailsWithTheLimitInTheError() async throws {
        try await withServer { server in
            Self.installEncoded(on: server, original: Data(count: 1_000_000))
            let plugin = GzipPlugin(.init(maximumDecompressedSize: 100_000))
            let provider = Provider<TestTarget>(transport: EncodedBodyTransport(), plugins: [plugin])
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.url("/encoded?as=gzip&token=secret"), path: ""))
            }
            guard case .plugin(let name, let underlying) = error,
                  case .decompressionFailed(let encoding, let url, let reason) = underlying as? GzipPlugin.Failure else {
                Issue.record("expected a GzipPlugin failure, got \(error)")
                return
            }
            #expect(name == "GzipPlugin")
            #expect(encoding == "gzip")
            #expect(reason == .sizeLimitExceeded(limit: 100_000))
            #expect(!url.contains("secret"), "the query stays out of error messages")
            #expect(error.description.contains("100000 bytes"))
        }
    }

    @Test func aCorruptResponseIsAClearError() async throws {
        try await withServer { server in
            server.route("/corrupt") { _ in
                LoopbackResponse(headers: [("Content-Encoding", "gzip")], body: .data(Data("not gzip at all".utf8)))
            }
            let provider = Provider<TestTarget>(transport: EncodedBodyTransport(), plugins: [GzipPlugin()])
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.url("/corrupt"), path: ""))
            }
            #expect(error.description.contains("could not be decompressed"))
            #expect(error.description.contains("corrupt"))
        }
    }

    @Test func aHeadResponseKeepsItsEncodingHeaders() async throws {
        try await withServer { server in
            server.route("/resource") { _ in
                LoopbackResponse(headers: [("Content-Encoding", "gzip"), ("ETag", "\"v1\"")], body: .data(Data()))
            }
            let provider = Provider<TestTarget>(transport: EncodedBodyTransport(), plugins: [GzipPlugin()])
            let response = try await provider.request(TestTarget(server.url("/resource"), path: "", method: .head))
            #expect(response.statusCode == 200)
            #expect(response.data.isEmpty)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip", "nothing was decoded, so nothing is rewritten")
            #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        }
    }
}
