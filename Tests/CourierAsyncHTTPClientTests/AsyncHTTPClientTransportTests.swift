import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import Testing

/// What only the AsyncHTTPClient transport has: client ownership and
/// optional decompression.
@Suite struct AsyncHTTPClientTransportTests {
    @Test func aClientPassedInIsNeverShutDown() async throws {
        try await withServer { server in
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            try await withClient(configuration) { client in
                let transport = AsyncHTTPClientTransport(client: client)
                let provider = Provider<TestTarget>(transport: transport)
                #expect(try await provider.request(TestTarget(server.baseURL, path: "/status/200")).statusCode == 200)
                try await transport.shutdown()
                let direct = try await client.execute(HTTPClientRequest(url: server.url("/status/204").absoluteString),
                                                      timeout: .seconds(10))
                #expect(direct.status.code == 204)
                #expect(try await provider.request(TestTarget(server.baseURL, path: "/status/200")).statusCode == 200)
                // Still the caller's client: it shuts down once, here.
                try await client.shutdown()
            }
        }
    }

    /// A client passed in that would go around a rule of the transfer stage
    /// fails every request before anything is sent, with an error that says
    /// how to make the client: one that follows redirects (its hops would
    /// skip the redirect rules: a token dropped across origins, no downgrade
    /// to http), as AsyncHTTPClient's default does, and one that decompresses
    /// (it would decode around `decodesContent` and the provider's limits).
    @Test(arguments: ["follows redirects by default", "follows redirects", "decompresses"])
    func aClientPassedInThatWouldGoAroundARuleIsRefusedBeforeSending(client kind: String) async throws {
        try await withServer { server in
            var configuration = HTTPClient.Configuration()
            if kind == "follows redirects" {
                configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
            } else if kind == "decompresses" {
                configuration.redirectConfiguration = .disallow
                configuration.decompression = .enabled(limit: .ratio(100))
            }
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            let provider = Provider<TestTarget>(transport: AsyncHTTPClientTransport(client: client))
            let error = await failure(of: TestTarget(server.baseURL, path: "/status/200"), on: provider)
            try await client.shutdown()
            switch error {
            case .transport(let underlying as AsyncHTTPClientTransport.ClientFollowsRedirects)? where kind != "decompresses":
                #expect("\(underlying)".contains(".disallow"))
            case .transport(let underlying as AsyncHTTPClientTransport.ClientDecompresses)? where kind == "decompresses":
                #expect("\(underlying)".contains(".disabled"))
            default:
                Issue.record("expected the client (\(kind)) to be refused, got \(String(describing: error))")
            }
            #expect(server.hits("/status/200") == 0)
        }
    }

    @Test func anOwnedClientIsShutDownByShutdown() async throws {
        try await withServer { server in
            let transport = AsyncHTTPClientTransport()
            let provider = Provider<TestTarget>(transport: transport)
            // Shut down whatever the first request does: what is checked is
            // `shutdown()` itself, not the shutdown a released transport starts.
            var status: Int?
            do {
                status = try await provider.request(TestTarget(server.baseURL, path: "/status/200")).statusCode
            } catch {
                Issue.record(error)
            }
            try await transport.shutdown()
            #expect(status == 200)
            // The client fails the call without telling its delegate; the
            // transport hears of it from the client's task and fails the
            // call at once, with the client's reason. Nothing else would end
            // it: the transfer stage's time-out tells the client to cancel a
            // task that has already ended, so a call that missed it would
            // wait for ever (here, fail at the deadline).
            let error = try await withDeadline(60, "the call after the shutdown") {
                await failure(of: TestTarget(server.baseURL, path: "/status/200"), on: provider)
            }
            guard case .transport(let reason as HTTPClientError)? = error else {
                Issue.record("expected the client's own failure, got \(String(describing: error))")
                return
            }
            #expect(reason == .alreadyShutdown)
            #expect(server.hits("/status/200") == 1)
            await #expect(throws: (any Error).self) { try await transport.shutdown() }
        }
    }

    /// A client whose event loops were shut down under it drops the
    /// request's start unrun (SwiftNIO logs that it cannot schedule it), so
    /// neither the client nor its task ever tells the transport anything:
    /// the target's time-out still ends the call, and as a time-out.
    @Test func aCallOnLoopsShutDownUnderItsClientEndsAtItsTimeout() async throws {
        try await withServer { server in
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
            // Such a client can be neither shut down (that is scheduled onto
            // its loops too) nor released (its deinit stops a debug build
            // when it was not shut down): it is kept for the process's life.
            DeadLoopClients.kept.withLock { $0.append(client) }
            try await group.shutdownGracefully()
            let provider = Provider<TestTarget>(transport: AsyncHTTPClientTransport(client: client))
            let error = try await withDeadline(60, "the call on loops shut down") {
                await failure(of: TestTarget(server.baseURL, path: "/status/200", timeout: 1), on: provider)
            }
            guard case .timedOut? = error else {
                Issue.record("expected the target's time-out, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/status/200") == 0)
        }
    }

    /// A transport released without `shutdown()` shuts the client it made
    /// down itself. Without that, AsyncHTTPClient stops this debug build when
    /// the client goes (its check for a client released while running), and a
    /// release build keeps the idle connection open until the client's idle
    /// time-out (60 s). Here the transport goes with its provider, and the
    /// connection the request used is closed well before that time-out.
    @Test func anOwnedClientIsShutDownWhenItsTransportIsReleased() async throws {
        try await withServer { server in
            var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
            weak let released = transport
            var provider: Provider<TestTarget>? = Provider(transport: try #require(transport))
            transport = nil
            let status = try await provider?.request(TestTarget(server.baseURL, path: "/status/200")).statusCode
            #expect(status == 200)
            let connection = try #require(server.requests(to: "/status/200").first).connectionID
            provider = nil
            try await withDeadline(30, "the connection's close") { await server.waitForClose(ofConnection: connection) }
            #expect(released == nil)
            #expect(server.hits("/status/200") == 1)
        }
    }

    /// A call that outlives its provider keeps the transport, and so its
    /// client, until it ends: a streamed call whose provider (the caller's
    /// only reference to the transport) is released mid-body reads the rest
    /// of the body, and only then does the released transport shut its client
    /// down and close the connection (well before the client's 60 s idle
    /// time-out would). A transport shut down at once would cut the body short.
    @Test func aCallUnderWayKeepsAReleasedTransportUntilItEnds() async throws {
        try await withServer { server in
            let providerReleased = Gate()
            server.route("/lines") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/plain")], body: .streamed { writer in
                    try await writer.write("first\n")
                    await providerReleased.wait()
                    try await writer.write("second\n")
                })
            }
            var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
            weak let released = transport
            var provider: Provider<TestTarget>? = Provider(transport: try #require(transport))
            transport = nil
            let streamed = try await #require(provider).stream(TestTarget(server.baseURL, path: "/lines"))
            provider = nil
            #expect(released != nil, "the transport went while its call was under way")
            providerReleased.open()
            var lines: [String] = []
            for try await line in streamed.lines { lines.append(line) }
            #expect(lines == ["first", "second"])
            let connection = try #require(server.requests(to: "/lines").first).connectionID
            try await withDeadline(30, "the connection's close") { await server.waitForClose(ofConnection: connection) }
            #expect(released == nil)
        }
    }

    /// How the queued request of the test below goes through the transport.
    enum QueuedRequest: CaseIterable, Sendable {
        /// Its response collected whole.
        case collected
        /// Its response streamed (a progress handler makes a request stream).
        case streamedResponse
        /// Its body sent from an `AsyncSequence` of unknown length: the
        /// attempt that timed out in the queue must not end the body's
        /// reading for the attempt that sends it.
        case streamedBody
    }

    /// AsyncHTTPClient fails a request that waited longer than its connect
    /// time-out for a pooled connection; the transport queues it again, so
    /// only the target's time-out ends the wait, as with URLSession. Every
    /// way through the transport, and the queued request arrives whole.
    @Test(arguments: QueuedRequest.allCases)
    func aRequestWaitingForAPooledConnectionOutlastsTheConnectTimeout(queued kind: QueuedRequest) async throws {
        let progress = progress(streamed: kind == .streamedResponse)
        let chunk = Data(repeating: 0x61, count: 1024)
        try await withServer { server in
            let gate = Gate()
            server.route("/held") { _ in
                await gate.wait()
                return LoopbackResponse(body: .data(Data("held".utf8)))
            }
            var configuration = HTTPClient.Configuration()
            configuration.timeout.connect = .milliseconds(100)
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1
            configuration.redirectConfiguration = .disallow
            try await withClient(configuration) { client in
                let provider = Provider<TestTarget>(transport: AsyncHTTPClientTransport(client: client))

                // The pool's one connection is opened first, so the held request
                // needs no connect: on a loaded machine (the sanitizer's runs) a
                // first connect can take longer than the 100 ms connect time-out,
                // and the held request would fail before the server saw it.
                var opened = false
                for _ in 0..<50 where !opened {
                    opened = (try? await provider.request(TestTarget(server.baseURL, path: "/status/204"))) != nil
                }
                try #require(opened, "no connection within 50 attempts of 100 ms")
                let holder = Task { try await provider.request(TestTarget(server.baseURL, path: "/held")) }
                guard await Self.firstOf(server: server, reaching: "/held", or: holder) else {
                    Issue.record("the held request ended before the server saw it: \(await holder.result)")
                    gate.open()
                    return
                }
                let queued = Task {
                    guard kind == .streamedBody else {
                        return try await provider.request(TestTarget(server.baseURL, path: "/status/200"), options: RequestOptions(progress: progress))
                    }
                    let body = AsyncStream<Data> { continuation in
                        for _ in 0..<3 { continuation.yield(chunk) }
                        continuation.finish()
                    }
                    let task = RequestTask.uploadStream(RequestBodyStream(body, length: .unknown))
                    return try await provider.request(TestTarget(server.baseURL, method: .put, task: task))
                }
                let bounded = Task {
                    try await provider.request(TestTarget(server.baseURL, path: "/status/201", timeout: 0.5), options: RequestOptions(progress: progress))
                }
                // The bounded request ends first, while the only connection is
                // still held by the gate; then ten connect time-outs (1 s in all)
                // pass before the connection is freed for the queued one.
                let timedOut = await bounded.result
                try await Task.sleep(for: .seconds(1))
                gate.open()

                let held = await holder.result
                let waited = await queued.result
                try await client.shutdown()

                #expect(try held.get().data == Data("held".utf8))
                if kind == .streamedBody {
                    #expect(try Echo(waited.get()).bodyData == chunk + chunk + chunk)
                } else {
                    #expect(try waited.get().statusCode == 200)
                }
                if case .failure(let error as NetworkError) = timedOut, case .timedOut = error {} else {
                    Issue.record("expected the 0.5 s target to time out while queued, got \(timedOut)")
                }
                #expect(server.hits("/status/201") == 0)
            }
        }
    }

    /// Whether `server` saw a request to `path` before `task` ended: a wait
    /// that cannot outlive the request it waits for.
    private static func firstOf<Value: Sendable>(
        server: LoopbackServer, reaching path: String, or task: Task<Value, any Error>
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            let resumed = Locked(false)
            let resume: @Sendable (Bool) -> Void = { value in
                let first = resumed.withLock { resumed in
                    defer { resumed = true }
                    return !resumed
                }
                if first { continuation.resume(returning: value) }
            }
            Task {
                _ = await server.waitForRequest(to: path)
                resume(true)
            }
            Task {
                _ = await task.result
                resume(false)
            }
        }
    }

    /// One setting of the provider decides what is asked for and what is
    /// decoded: on (the default), the transport undoes gzip and fixes the head;
    /// off, it asks for `identity` and hands over what a server sends anyway.
    @Test(arguments: [true, false])
    func decodingFollowsTheProvidersSetting(decodes: Bool) async throws {
        try await withServer { server in
            let text = Data(String(repeating: "courier ", count: 5000).utf8)
            let gzipped = StoredGzip.make(text)
            server.route("/gzipped") { _ in
                LoopbackResponse(headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], body: .data(gzipped))
            }
            let transport = AsyncHTTPClientTransport()
            let provider = Provider<TestTarget>(transport: transport, transfer: TransferConfiguration(decodesContent: decodes))
            let result = await Result(catching: { try await provider.request(TestTarget(server.baseURL, path: "/gzipped")) })
            try await transport.shutdown()
            let response = try result.get()
            let asked = server.requests(to: "/gzipped").map { $0.header("Accept-Encoding") ?? "none" }
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            if decodes {
                #expect(asked == ["gzip, deflate"])
                #expect(response.data == text)
                #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
                #expect(response.value(forHTTPHeaderField: "Content-Length") == String(text.count))
            } else {
                #expect(asked == ["identity"])
                #expect(response.data == gzipped)
                #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
                #expect(response.value(forHTTPHeaderField: "Content-Length") == String(gzipped.count))
            }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

/// Clients whose loops a test shut down under them (see
/// `aCallOnLoopsShutDownUnderItsClientEndsAtItsTimeout`).
private enum DeadLoopClients {
    static let kept = Mutex<[HTTPClient]>([])
}
