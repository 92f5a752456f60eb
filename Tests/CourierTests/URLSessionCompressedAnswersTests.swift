import Courier
import CourierTestSupport
import Foundation
import Testing

/// `URLSession` decodes a compressed body by itself, before the transfer
/// stage can count it against a limit, so `URLSessionTransport` asks for
/// `identity` and, unless told to take them, refuses a compressed answer at
/// its head: the caller learns why, and no byte of the body is decoded into
/// the call.
@Suite struct URLSessionCompressedAnswersTests {
    let provider = Provider<TestTarget>()

    /// Whatever the target, a plugin or the transfer stage asked for.
    @Test func byDefaultEveryRequestAsksForIdentity() async throws {
        try await withServer { server in
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/200"))
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/200", headers: ["Accept-Encoding": "gzip"]))
            #expect(server.requests(to: "/status/200").map { $0.header("Accept-Encoding") } == ["identity", "identity"])

            let optedIn = Provider<TestTarget>(transport: URLSessionTransport(decodesCompressedResponses: true))
            _ = try await optedIn.request(TestTarget(server.baseURL, path: "/status/204", headers: ["Accept-Encoding": "gzip"]))
            #expect(server.requests(to: "/status/204").map { $0.header("Accept-Encoding") } == ["gzip"])
        }
    }

    /// A configuration that asks for an encoding of its own asks for
    /// `identity` instead, since the session would decode what it asked for
    /// before any limit counts it; its other fields reach the wire as given.
    @Test func aConfigurationsOwnEncodingGivesWay() async throws {
        try await withServer { server in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["accept-encoding": "br", "X-Team": "couriers"]
            let transport = URLSessionTransport(sessionConfiguration: configuration)
            let provider = Provider<TestTarget>(transport: transport)
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/200"))
            let sent = server.requests(to: "/status/200")
            #expect(sent.map { $0.header("Accept-Encoding") } == ["identity"])
            #expect(sent.map { $0.header("X-Team") } == ["couriers"])
            #if canImport(FoundationNetworking)
            // There the session's own fields carry `identity`: one field of
            // that name, whatever its spelling, since with two, which reaches
            // the wire would depend on the dictionary's order.
            let named = (transport.sessionConfiguration.httpAdditionalHeaders ?? [:]).filter { key, _ in
                (key.base as? String)?.lowercased() == "accept-encoding"
            }
            #expect(named.map { $0.value as? String } == ["identity"])
            #endif
            #expect(configuration.httpAdditionalHeaders?["accept-encoding"] as? String == "br", "the caller's configuration is not changed")
        }
    }

    enum Call: String, CaseIterable, Sendable { case request, stream, download }

    /// The server compresses anyway, and its body never ends: only a refusal
    /// at the head lets the call end at all (the target's time-out is ten
    /// minutes), and it ends with the encoding named and the way out.
    @Test(arguments: Call.allCases)
    func aCompressedAnswerIsRefusedAtItsHead(call: Call) async throws {
        try await withServer { server in
            let never = Gate()
            defer { never.open() }
            let firstBytes = StoredGzip.make(Data(String(repeating: "courier ", count: 1_000).utf8)).prefix(200)
            server.route("/compressed") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                                 body: .streamed { writer in
                                     try await writer.write(Data(firstBytes))
                                     await never.wait()
                                 })
            }
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let destination = directory.file("download")
            let task: RequestTask = call == .download ? .downloadDestination(DownloadDestinations.file(destination)) : .requestPlain
            let target = TestTarget(server.baseURL, path: "/compressed", task: task, timeout: 600)
            let error = await #expect(throws: NetworkError.self) {
                try await withDeadline(120, "the refused \(call)") { [provider] in
                    if call == .stream {
                        _ = try await provider.stream(target)
                    } else {
                        _ = try await provider.request(target)
                    }
                }
            }
            guard case .invalidResponse(let refused as RefusedContentEncoding)? = error else {
                Issue.record("expected invalidResponse(RefusedContentEncoding), got \(String(describing: error))")
                return
            }
            #expect(refused.contentEncoding == "gzip")
            #expect("\(error!)".contains("Content-Encoding: gzip"))
            #expect("\(error!)".contains("decodesCompressedResponses: true"))
            #expect(!FileManager.default.fileExists(atPath: destination.path), "nothing half-written")
        }
    }

    /// An answer with no body has nothing to decode: a `HEAD`, a 304, a 204.
    @Test func answersWithoutABodyAreNotRefused() async throws {
        try await withServer { server in
            server.route("/entity") { request in
                let status = request.header("If-None-Match") == "\"v1\"" ? 304 : request.method == "HEAD" ? 200 : 204
                return LoopbackResponse(status: status, headers: [("Content-Encoding", "gzip"), ("ETag", "\"v1\"")], body: .data(Data()))
            }
            let head = try await provider.request(TestTarget(server.baseURL, path: "/entity", method: .head))
            #expect(head.statusCode == 200)
            let noContent = try await provider.request(TestTarget(server.baseURL, path: "/entity", method: .delete))
            #expect(noContent.statusCode == 204)
            let notModified = try await provider.request(TestTarget(server.baseURL, path: "/entity", headers: ["If-None-Match": "\"v1\""],
                                                                    validationType: .none))
            #expect(notModified.statusCode == 304)
        }
    }
}
