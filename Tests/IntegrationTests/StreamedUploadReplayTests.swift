import Courier
import CourierAsyncHTTPClient
import CourierAuth
import CourierCache
import CourierRetry
import CourierTestSupport
import Foundation
import Testing

/// What the plugins that send a request again do with a body streamed from
/// an `AsyncSequence`: on a transport that sends it as it is read, a
/// one-shot stream is never sent twice; a stream that can be read again, or
/// one the URLSession transport read whole first, is replayed as any body.
@Suite struct StreamedUploadReplayTests {
    struct Upload: TargetType, AccessTokenAuthorizable, CacheableTarget {
        let baseURL: URL
        let body: RequestBodyStream
        var path = "/upload"
        var method: HTTPMethod { .post }
        var task: RequestTask { .uploadStream(body) }
        var headers: [String: String]? { nil }
        var validationType: ValidationType { .none }
        var authorizationType: AuthorizationType? { .bearer }
        var cachesRequestsWithBody: Bool { true }
    }

    enum Transports: String, CaseIterable, CustomTestStringConvertible {
        case urlSession, asyncHTTPClient
        var testDescription: String { rawValue }

        func with<T: Sendable>(_ body: (any Transport) async throws -> T) async throws -> T {
            switch self {
            case .urlSession:
                return try await body(URLSessionTransport(sessionConfiguration: .ephemeral))
            case .asyncHTTPClient:
                let transport = AsyncHTTPClientTransport()
                do {
                    let result = try await body(transport)
                    try await transport.shutdown()
                    return result
                } catch {
                    try? await transport.shutdown()
                    throw error
                }
            }
        }
    }

    /// A body of two chunks, read once or as often as asked; `reads` counts
    /// the readings that began.
    static func body(_ iteration: RequestBodyStream.IterationBehavior, reads: Mutex<Int>) -> RequestBodyStream {
        let parts = [Data("report ".utf8), Data("body".utf8)]
        struct Counted: AsyncSequence, Sendable {
            let parts: [Data]
            let reads: Mutex<Int>
            struct AsyncIterator: AsyncIteratorProtocol {
                var remaining: ArraySlice<Data>
                mutating func next() async -> Data? { remaining.popFirst() }
            }
            func makeAsyncIterator() -> AsyncIterator {
                reads.withLock { $0 += 1 }
                return AsyncIterator(remaining: parts[...])
            }
        }
        return RequestBodyStream(Counted(parts: parts, reads: reads), length: .known(11), iterationBehavior: iteration)
    }

    /// Whether the body can be sent twice on `transport`.
    static func replays(_ transport: Transports, _ iteration: RequestBodyStream.IterationBehavior) -> Bool {
        transport == .urlSession || iteration == .multiple
    }

    @Test(arguments: Transports.allCases, [RequestBodyStream.IterationBehavior.single, .multiple])
    func theAuthPluginRefreshesAndReplaysOnlyWhatItCanSendAgain(
        transport: Transports, iteration: RequestBodyStream.IterationBehavior
    ) async throws {
        try await withServer { server in
            server.route("/upload") { request in
                request.header("Authorization") == "Bearer fresh"
                    ? LoopbackResponse(status: 200, body: .data(request.body))
                    : LoopbackResponse(status: 401)
            }
            let refreshes = Mutex(0)
            let store = InMemoryCredentialStore(Credential(accessToken: "stale"))
            let auth = AuthPlugin(store: store) { _ in
                refreshes.withLock { $0 += 1 }
                return Credential(accessToken: "fresh")
            }
            let reads = Mutex(0)
            try await transport.with { sender in
                let provider = Provider<Upload>(transport: sender, plugins: [auth])
                let response = try await provider.request(Upload(baseURL: server.baseURL, body: Self.body(iteration, reads: reads)))
                #expect(refreshes.withLock { $0 } == 1, "the refused token is refreshed either way")
                #expect(store.credential?.accessToken == "fresh")
                if Self.replays(transport, iteration) {
                    #expect(response.statusCode == 200)
                    #expect(String(decoding: response.data, as: UTF8.self) == "report body")
                    #expect(server.hits("/upload") == 2)
                } else {
                    #expect(response.statusCode == 401, "a one-shot body is gone: the 401 stands")
                    #expect(server.hits("/upload") == 1)
                    #expect(reads.withLock { $0 } == 1)
                }
            }
        }
    }

    @Test(arguments: Transports.allCases, [RequestBodyStream.IterationBehavior.single, .multiple])
    func theRetryPluginRetriesOnlyWhatItCanSendAgain(
        transport: Transports, iteration: RequestBodyStream.IterationBehavior
    ) async throws {
        try await withServer { server in
            let answered = Mutex(0)
            server.route("/upload") { request in
                let first = answered.withLock { count in
                    count += 1
                    return count == 1
                }
                return first ? LoopbackResponse(status: 503) : LoopbackResponse(status: 200, body: .data(request.body))
            }
            let retry = RetryPlugin(.init(maximumAttempts: 3, initialDelay: 0.001, maximumDelay: 0.001))
            let reads = Mutex(0)
            try await transport.with { sender in
                let provider = Provider<Upload>(transport: sender, plugins: [retry])
                let target = Upload(baseURL: server.baseURL, body: Self.body(iteration, reads: reads))
                let response = try await provider.request(target, options: RequestOptions().setting(RetryPlugin.AllowsRetry.self, to: true))
                if Self.replays(transport, iteration) {
                    #expect(response.statusCode == 200)
                    #expect(String(decoding: response.data, as: UTF8.self) == "report body")
                    #expect(server.hits("/upload") == 2)
                } else {
                    #expect(response.statusCode == 503, "a one-shot body is gone: the 503 stands")
                    #expect(server.hits("/upload") == 1)
                    #expect(reads.withLock { $0 } == 1)
                }
            }
        }
    }
}

/// What the cache and logging plugins do with a body they cannot see.
@Suite struct StreamedUploadObserverTests {
    /// A request whose body the cache cannot key is never answered from it:
    /// two searches with different streamed bodies reach the server twice.
    @Test func theCacheNeverKeysABodyItCannotSee() async throws {
        typealias Transports = StreamedUploadReplayTests.Transports
        typealias Search = StreamedUploadReplayTests.Upload
        try await withServer { server in
            try await Transports.asyncHTTPClient.with { transport in
                let provider = Provider<Search>(transport: transport, plugins: [
                    CachePlugin(storage: MemoryResponseCache(), configuration: .init(defaultStrategy: .cacheIfPossible, lifetime: 600)),
                ])
                let first = try await provider.request(Search(baseURL: server.baseURL, body: RequestBodyStream(chunks: [Data("a".utf8)]), path: "/echo"))
                let second = try await provider.request(Search(baseURL: server.baseURL, body: RequestBodyStream(chunks: [Data("b".utf8)]), path: "/echo"))
                #expect(try Echo(first).bodyText == "a")
                #expect(try Echo(second).bodyText == "b", "the second body's answer, not the first's from the cache")
                #expect(server.hits("/echo") == 2)
            }
        }
    }
}
