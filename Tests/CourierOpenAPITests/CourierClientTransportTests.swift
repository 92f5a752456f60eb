import Courier
import CourierAsyncHTTPClient
import CourierAuth
import CourierCache
import CourierOpenAPI
import CourierRetry
import CourierTestSupport
import Foundation
import GreetingsAPI
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The generated Greetings client (Examples/OpenAPIClient/GreetingsAPI)
/// against the loopback server, through a Courier provider.
@Suite struct CourierClientTransportTests {
    /// The Greetings API on the loopback server.
    static func installGreetings(on server: LoopbackServer) {
        server.route("/api/greetings/", prefix: true) { request in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            guard name != "nobody" else { return .json(["reason": "no such person"], status: 404) }
            let greeting = request.query("language") == "fr" ? "Bonjour" : "Hello"
            return .json(["message": "\(greeting), \(name.removingPercentEncoding ?? name)!"])
        }
    }

    static func client(_ server: LoopbackServer, _ provider: Provider<OpenAPIOperation>,
                       configuration: CourierClientTransport.Configuration = .init()) -> Client {
        Client(serverURL: server.url("/api"), transport: CourierClientTransport(provider: provider, configuration: configuration))
    }

    /// Notes the operation ID and target each call's plugins see.
    struct OperationRecorder: Plugin {
        let seen = Mutex<[String]>([])
        func willSend(_ request: URLRequest, context: RequestContext) async {
            let target = (context.target as? OpenAPIOperation)?.operationID ?? "?"
            seen.withLock { $0.append("\(context.operationID ?? "nil")/\(target)") }
        }
    }

    struct Receipt: Encodable {
        let bytes: Int64
        let sha256: String
    }

    @Test(arguments: [false, true])
    func aTypedCallGoesThroughTheProviderAndItsPlugins(onAsyncHTTPClient: Bool) async throws {
        try await withServer { server in
            Self.installGreetings(on: server)
            let recorder = OperationRecorder()
            // A client that is never shut down traps when released.
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { client in
                let transport: any Transport = onAsyncHTTPClient ? client : URLSessionTransport(decodesCompressedResponses: true)
                let provider = Provider<OpenAPIOperation>(transport: transport, plugins: [recorder])
                let api = Self.client(server, provider)

                let output = try await api.getGreeting(path: .init(name: "Ada Lovelace"), query: .init(language: "fr"))
                #expect(try output.ok.body.json.message == "Bonjour, Ada Lovelace!")
                let missing = try await api.getGreeting(path: .init(name: "nobody"))
                #expect(try missing.notFound.body.json.reason == "no such person")

                let sent = try #require(server.requests(to: "/api/greetings/Ada Lovelace").first)
                #expect(sent.uri == "/api/greetings/Ada%20Lovelace?language=fr")
                #expect(sent.header("Accept") == "application/json")
                #expect(recorder.seen.withLock { $0 } == ["getGreeting/getGreeting", "getGreeting/getGreeting"])
            }
        }
    }

    /// A server that compresses whatever it is asked (as httpbin's `/gzip`
    /// does): the generated client decodes the same JSON on every transport
    /// that takes compressed answers (`URLSessionTransport` when told to).
    @Test(arguments: [false, true])
    func aCompressedAnswerDecodesOnEveryTransport(onAsyncHTTPClient: Bool) async throws {
        try await withServer { server in
            let json = Data(#"{"message":"Hello, Ada!"}"#.utf8)
            server.route("/api/greetings/Ada") { _ in
                LoopbackResponse(headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                 body: .data(StoredGzip.make(json)))
            }
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { client in
                let transport: any Transport = onAsyncHTTPClient ? client : URLSessionTransport(decodesCompressedResponses: true)
                let api = Self.client(server, Provider<OpenAPIOperation>(transport: transport))
                let output = try await api.getGreeting(path: .init(name: "Ada"))
                #expect(try output.ok.body.json.message == "Hello, Ada!")
            }
        }
    }

    @Test func a401IsRefreshedByTheAuthPluginAndReplayed() async throws {
        try await withServer { server in
            server.route("/api/me") { request in
                request.header("Authorization") == "Bearer fresh" ? .json(["name": "Ada"]) : .text("", status: 401)
            }
            let store = InMemoryCredentialStore(Credential(accessToken: "stale", refreshToken: "r1"))
            let refreshes = Mutex(0)
            let provider = Provider<OpenAPIOperation>(plugins: [
                .auth(store, configuration: .init(defaultAuthorizationType: .bearer)) { _ in
                    refreshes.withLock { $0 += 1 }
                    return Credential(accessToken: "fresh", refreshToken: "r2")
                },
            ])
            let output = try await Self.client(server, provider).getProfile()
            #expect(try output.ok.body.json.name == "Ada")
            #expect(refreshes.withLock { $0 } == 1)
            #expect(server.requests(to: "/api/me").map { $0.header("Authorization") } == ["Bearer stale", "Bearer fresh"])
        }
    }

    @Test func a503IsRetriedByTheRetryPlugin() async throws {
        try await withServer { server in
            server.routeFlaky(path: "/api/status", failures: 2, success: .json(["healthy": true]))
            let provider = Provider<OpenAPIOperation>(plugins: [
                RetryPlugin(.init(maximumAttempts: 3, initialDelay: 0.001, maximumDelay: 0.001)),
            ])
            let output = try await Self.client(server, provider).getStatus()
            #expect(try output.ok.body.json.healthy == true)
            #expect(server.hits("/api/status") == 3)
        }
    }

    @Test func aGETIsServedFromTheCacheTheSecondTime() async throws {
        try await withServer { server in
            server.route("/api/news") { _ in
                .json(["headlines": ["Courier speaks OpenAPI"]], headers: [("Cache-Control", "max-age=60")])
            }
            let provider = Provider<OpenAPIOperation>(plugins: [CachePlugin(configuration: .init(defaultStrategy: .cacheIfPossible))])
            // The cache reads whole bodies: the operation is collected, not
            // streamed.
            let client = Self.client(server, provider, configuration: .init(collectedResponseOperations: ["getNews"]))
            let first = try await client.getNews()
            let second = try await client.getNews()
            #expect(try first.ok.body.json.headlines == ["Courier speaks OpenAPI"])
            #expect(try second.ok.body.json.headlines == ["Courier speaks OpenAPI"])
            #expect(server.hits("/api/news") == 1)
        }
    }

    @Test func aFailureReachesTheClientAsClientErrorWithTheNetworkErrorInside() async throws {
        try await withRefusingPort { url in
            let client = Client(serverURL: url, transport: CourierClientTransport(provider: Provider<OpenAPIOperation>()))
            do {
                _ = try await client.getStatus()
                Issue.record("the call succeeded")
            } catch let error as ClientError {
                #expect(error.operationID == "getStatus")
                guard case .serverUnreachable = error.underlyingError as? NetworkError else {
                    Issue.record("underlying error: \(error.underlyingError)")
                    return
                }
            }
        }
    }

    @Test func aStatusCodeTheClientCannotHoldIsAnInvalidResponseNotACrash() async throws {
        // A stubbed operation: the endpoint closure gives every operation its
        // sample response.
        let provider = Provider<OpenAPIOperation>(endpointClosure: { operation in
            Provider.defaultEndpointMapping(for: operation).replacing(sampleResponse: .networkResponse(1000, Data("{}".utf8)))
        }, stubClosure: Provider.immediatelyStub)
        do {
            _ = try await Client(serverURL: try #require(URL(string: "http://127.0.0.1:9/api")),
                                 transport: CourierClientTransport(provider: provider)).getStatus()
            Issue.record("the call succeeded")
        } catch let error as ClientError {
            guard case .invalidResponse(let failure) = error.underlyingError as? NetworkError else {
                Issue.record("underlying error: \(error.underlyingError)")
                return
            }
            #expect("\(failure)".contains("1000"))
        }
    }

    @Test func aStreamedRequestBodyIsSpooledOnURLSessionNotBufferedAndArrivesWhole() async throws {
        try await withServer { server in
            server.route("/api/uploads") { request in
                .json(Receipt(bytes: Int64(request.body.count), sha256: SHA256.hex(request.body)))
            }
            let chunk = LoopbackServer.bytes(count: 256 * 1024, seed: 3)
            let count = 24 // 6 MiB, more than the 4 MiB kept in memory
            let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                for _ in 0..<count { continuation.yield(ArraySlice(chunk)) }
                continuation.finish()
            }
            var whole = Data()
            for _ in 0..<count { whole.append(chunk) }

            // A file of that size a killed run left in the folder is not this call's.
            let leftBefore = Set(try Self.spooledFiles(ofSize: whole.count))
            let provider = Provider<OpenAPIOperation>(plugins: [
                RetryPlugin(.init(maximumAttempts: 2, initialDelay: 0.001, maximumDelay: 0.001)),
            ])
            let output = try await Self.client(server, provider).upload(body: .binary(HTTPBody(stream, length: .unknown)))
            let receipt = try output.ok.body.json
            #expect(receipt.bytes == Int64(whole.count))
            #expect(receipt.sha256 == SHA256.hex(whole))
            // Other tests spool bodies of their own at the same time; this
            // call's file is the one of its body's size.
            let left = Set(try Self.spooledFiles(ofSize: whole.count))
            #expect(left.subtracting(leftBefore).isEmpty, "the spooled body is removed after the call")
        }
    }

    /// On AsyncHTTPClient a long request body goes out as the generated
    /// client produces it: the producer sends its second half only once the
    /// server has received the first, which a spooled body never would (the
    /// test would end at its deadline), and nothing is written to disk.
    @Test func aStreamedRequestBodyGoesOutAsItIsMadeOnAsyncHTTPClient() async throws {
        try await withServer { server in
            server.route("/api/uploads") { request in
                .json(Receipt(bytes: Int64(request.body.count), sha256: SHA256.hex(request.body)))
            }
            let half = LoopbackServer.bytes(count: (3 << 20) + 17, seed: 4)  // two halves: 6 MiB, past the 4 MiB kept in memory (a size no other test spools)
            let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                let producer = Task {
                    continuation.yield(ArraySlice(half))
                    await server.waitForBodyBytes(to: "/api/uploads", atLeast: half.count)
                    continuation.yield(ArraySlice(half))
                    continuation.finish()
                }
                continuation.onTermination = { _ in producer.cancel() }
            }
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { transport in
                try await withDeadline(120, "an upload sent while it is made") {
                    let api = Self.client(server, Provider<OpenAPIOperation>(transport: transport))
                    let receipt = try await api.upload(body: .binary(HTTPBody(stream, length: .unknown))).ok.body.json
                    #expect(receipt.bytes == Int64(2 * half.count))
                    #expect(receipt.sha256 == SHA256.hex(half + half))
                }
            }
            #expect(server.requests(to: "/api/uploads").first?.header("Transfer-Encoding") == "chunked")
            #expect(try Self.spooledFiles(ofSize: 2 * half.count).isEmpty, "nothing is written to disk")
        }
    }

    @Test func aResponseBodyStreamsFromTheConnectionWithoutATemporaryFile() async throws {
        try await withServer { server in
            let size = 5 << 20
            server.route("/api/files/", prefix: true) { _ in
                LoopbackResponse(headers: [("Content-Type", "application/octet-stream")], body: .generated(count: size, seed: 9))
            }
            let client = Self.client(server, Provider<OpenAPIOperation>())
            let body = try await client.downloadFile(path: .init(id: "report")).ok.body.binary
            #expect(body.length == .known(Int64(size)))
            // Earlier releases downloaded such a body to a private file first.
            #expect(try Self.files(prefix: "", ofSize: size).isEmpty, "nothing is written to disk")
            var hash = SHA256.incremental()
            var chunks = 0
            for try await chunk in body {
                hash.update(Data(chunk))
                chunks += 1
            }
            #expect(hash.finalizeHex() == SHA256.hex(LoopbackServer.bytes(count: size, seed: 9)))
            #expect(chunks > 1, "the body arrives in pieces")
        }
    }

    /// The server sends the second event only after the client has read the
    /// first, so a body held until its end would never arrive.
    @Test(arguments: [false, true])
    func aResponseReachesTheClientAsItArrives(asyncHTTPClient: Bool) async throws {
        try await withServer { server in
            let firstRead = Gate()
            server.route("/api/files/", prefix: true) { _ in
                LoopbackResponse(headers: [("Content-Type", "application/octet-stream")], body: .streamed { writer in
                    try await writer.write("first")
                    await firstRead.wait()
                    try await writer.write("second")
                })
            }
            try await Self.withProvider(asyncHTTPClient: asyncHTTPClient) { provider in
                let body = try await Self.client(server, provider).downloadFile(path: .init(id: "live")).ok.body.binary
                try await withDeadline(120, "reading both pieces") {
                    var text = ""
                    for try await chunk in body {
                        text += String(decoding: chunk, as: UTF8.self)
                        if text == "first" { firstRead.open() }
                    }
                    #expect(text == "firstsecond")
                }
            }
        }
    }

    /// A generated client's `text/event-stream` operation, decoded by
    /// swift-openapi-runtime's own event parser: each event arrives when the
    /// server sends it (the second only after the first was read).
    @Test(arguments: [false, true])
    func anEventStreamOperationDeliversEventsAsTheyAreSent(asyncHTTPClient: Bool) async throws {
        try await withServer { server in
            let firstRead = Gate()
            server.route("/api/events") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream")], body: .streamed { writer in
                    try await writer.write("id: 1\ndata: Hello, Ada!\n\n")
                    await firstRead.wait()
                    try await writer.write("id: 2\ndata: Hello, Grace!\n\n")
                })
            }
            try await Self.withProvider(asyncHTTPClient: asyncHTTPClient) { provider in
                let body = try await Self.client(server, provider).getEvents().ok.body.textEventStream
                try await withDeadline(120, "reading both events") {
                    var seen: [String] = []
                    for try await event in body.asDecodedServerSentEvents() {
                        seen.append(event.data ?? "")
                        if seen.count == 1 { firstRead.open() }
                    }
                    #expect(seen == ["Hello, Ada!", "Hello, Grace!"])
                }
            }
        }
    }

    /// A provider on URLSession or on AsyncHTTPClient, shut down afterwards.
    static func withProvider(asyncHTTPClient: Bool, _ body: (Provider<OpenAPIOperation>) async throws -> Void) async throws {
        guard asyncHTTPClient else { return try await body(Provider<OpenAPIOperation>()) }
        let transport = AsyncHTTPClientTransport()
        do {
            try await body(Provider<OpenAPIOperation>(transport: transport))
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    /// The documentation promises every status back to the client, streamed
    /// or not: a 404 of a streamed operation is the client's to judge.
    @Test func aStreamedOperationReturnsAnErrorStatusWithItsBody() async throws {
        try await withServer { server in
            server.route("/api/files/", prefix: true) { _ in .json(["reason": "no such file"], status: 404) }
            let client = Self.client(server, Provider<OpenAPIOperation>())
            let output = try await client.downloadFile(path: .init(id: "missing"))
            guard case .undocumented(statusCode: 404, let payload) = output else {
                Issue.record("expected the 404, got \(output)")
                return
            }
            let body = try await Data(collecting: try #require(payload.body), upTo: 1 << 20)
            #expect(String(decoding: body, as: UTF8.self).contains("no such file"))
        }
    }

    /// A middleware may write a path or query with characters it did not
    /// encode: the call fails to build, and nothing traps.
    @Test(arguments: ["/a b", "/a%zz", "/ok?q=a b", "/ok?q=%"])
    func aPathThatIsNotPercentEncodedFailsToBuild(path: String) async throws {
        try await withServer { server in
            let transport = CourierClientTransport(provider: Provider<OpenAPIOperation>())
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
            await #expect {
                _ = try await transport.send(request, body: nil, baseURL: server.url("/api"), operationID: "getGreeting")
            } throws: { error in
                guard case .requestBuildFailed = error as? NetworkError else { return false }
                return true
            }
            #expect(server.requests.isEmpty)
        }
    }

    static func files(prefix: String) throws -> [String] {
        let folder = try #require(Self.privateFolder())
        return (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0.hasPrefix(prefix) } ?? []
    }

    static func spooledFiles() throws -> [String] { try files(prefix: "body-") }

    static func spooledFiles(ofSize size: Int) throws -> [String] {
        try files(prefix: "body-", ofSize: size)
    }

    static func files(prefix: String, ofSize size: Int) throws -> [String] {
        let folder = try #require(Self.privateFolder())
        return try files(prefix: prefix).filter { name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            return (attributes?[.size] as? NSNumber)?.intValue == size
        }
    }
    static func privateFolder() -> URL? { try? PrivateTemporaryFile.folderURL() }
}
