import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierCodable
import CourierLogging
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - Target and plugins

/// `GET /json` on the bench server.
struct BenchTarget: TargetType {
    var baseURL: URL
    var path: String { "/json" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

/// The calls whose walks `Benchmarks/walk` counts besides the GET: the
/// server-sent events at `/events`, and `/json` downloaded to `file`.
enum WalkTarget: TargetType {
    case events(URL)
    case download(URL, to: URL)

    var baseURL: URL {
        switch self {
        case .events(let url), .download(let url, _): url
        }
    }
    var path: String {
        switch self {
        case .events: "/events"
        case .download: "/json"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask {
        switch self {
        case .events: .requestPlain
        case .download(_, let file): .downloadDestination(DownloadDestinations.file(file))
        }
    }
    var headers: [String: String]? { nil }
}

/// A plugin that does nothing in any hook: the cost of the pipeline itself.
struct NoopPlugin: Plugin {}

/// A plugin whose `willSend` and `didReceive` do nothing: what the pipeline
/// charges a plugin for the two hooks the logging plugin writes, before it
/// does anything.
struct ObservingNoopPlugin: Plugin {
    func willSend(_ request: URLRequest, context: RequestContext) async {}
    func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {}
}

/// The four no-op plugins of the pipeline benchmarks.
let fourNoopPlugins: [any Plugin] = [NoopPlugin(), NoopPlugin(), NoopPlugin(), NoopPlugin()]

// MARK: - One request each way

/// One client operation: sends `GET /json` and decodes the payload.
typealias BenchOperation = @Sendable () async throws -> Void

enum Clients {
    /// Courier with four no-op plugins and `DecodableMapper`, on `transport`.
    static func courier(on transport: any Transport, baseURL: URL) -> BenchOperation {
        let provider = Provider<BenchTarget>(transport: transport, plugins: fourNoopPlugins)
        let target = BenchTarget(baseURL: baseURL)
        let mapper = DecodableMapper<Payload>()
        return { _ = try await provider.request(target, mapper: mapper) }
    }

    /// `URLSession.data(for:)` plus `JSONDecoder` (one decoder for every
    /// call, as `DecodableMapper` keeps one).
    static func bareURLSession(_ session: URLSession, baseURL: URL) -> BenchOperation {
        let request = URLRequest(url: baseURL.appendingPathComponent("json"))
        let decoder = JSONDecoder()
        return {
            let (data, _) = try await session.data(for: request)
            _ = try decoder.decode(Payload.self, from: data)
        }
    }

    /// The transport through a provider with no plugins and no mapping: the
    /// transport and the transfer stage (redirect, time-out and limit checks,
    /// collecting the body), as every request pays them.
    static func transportOnly(_ transport: any Transport, baseURL: URL) -> BenchOperation {
        let provider = Provider<BenchTarget>(transport: transport)
        let target = BenchTarget(baseURL: baseURL)
        return { _ = try await provider.request(target) }
    }

    /// The transport's `send` called directly, with a control nobody watches:
    /// the transport without the provider and the transfer stage (decoding
    /// the payload with `JSONDecoder` when `decodes`).
    static func transportDirect(_ transport: any Transport, baseURL: URL, decodes: Bool = false) -> BenchOperation {
        let request = URLRequest(url: baseURL.appendingPathComponent("json"))
        let decoder = JSONDecoder()
        return {
            let response = try await transport.send(TransportRequest(urlRequest: request, control: TransferControl()))
            let body = try await response.body.collect(upTo: 16 << 20)
            if decodes { _ = try decoder.decode(Payload.self, from: body) }
        }
    }

    /// A provider with no plugins and `DecodableMapper`: the pipeline pair's
    /// Courier side without its four plugins.
    static func courierWithoutPlugins(on transport: any Transport, baseURL: URL) -> BenchOperation {
        let provider = Provider<BenchTarget>(transport: transport)
        let target = BenchTarget(baseURL: baseURL)
        let mapper = DecodableMapper<Payload>()
        return { _ = try await provider.request(target, mapper: mapper) }
    }

    /// ``courierWithoutPlugins(on:baseURL:)`` with the logging plugin, its
    /// logger at `level` and a handler that drops every line: what logging
    /// costs a request, the lines made but written nowhere.
    /// With `level` nil, ``ObservingNoopPlugin`` instead of the logging plugin.
    static func courierLogging(on transport: any Transport, baseURL: URL, level: Logger.Level?) -> BenchOperation {
        let plugin: any Plugin = level.map { LoggingPlugin(.init(logger: droppingLogger(at: $0))) } ?? ObservingNoopPlugin()
        let provider = Provider<BenchTarget>(transport: transport, plugins: [plugin])
        let target = BenchTarget(baseURL: baseURL)
        let mapper = DecodableMapper<Payload>()
        return { _ = try await provider.request(target, mapper: mapper) }
    }

    /// A logger at `level` whose lines are made and written nowhere.
    private static func droppingLogger(at level: Logger.Level) -> Logger {
        var logger = Logger(label: "courier.bench") { _ in SoakBenchmark.NullLogHandler() }
        logger.logLevel = level
        return logger
    }

    /// The walks of a streamed call and of a download (Benchmarks/walk): a
    /// provider with the logging plugin at info, lines dropped, reading the
    /// two server-sent events at `/events` of the nginx of
    /// Benchmarks/nginx/run, or writing `/json` to a file.
    static func courierLoggingWalk(on transport: any Transport, baseURL: URL, streams: Bool) -> BenchOperation {
        let provider = Provider<WalkTarget>(transport: transport,
                                            plugins: [LoggingPlugin(.init(logger: droppingLogger(at: .info)))])
        if streams {
            let target = WalkTarget.events(baseURL)
            return {
                for try await _ in try await provider.serverSentEvents(target) {}
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-walk-\(UUID().uuidString)")
        let target = WalkTarget.download(baseURL, to: file)
        return {
            _ = try await provider.request(target)
            try? FileManager.default.removeItem(at: file)
        }
    }

    /// The bare async API as ``bareAsyncHTTPClient(_:baseURL:)``, with the
    /// request made for every call from the base URL and the path, as a
    /// client whose calls differ makes it (a provider builds each call's URL
    /// from its target).
    static func bareAsyncHTTPClientBuildingURL(_ client: HTTPClient, baseURL: URL) -> BenchOperation {
        let decoder = JSONDecoder()
        return {
            let request = HTTPClientRequest(url: baseURL.appendingPathComponent("json").absoluteString)
            let body = try await collect(client.execute(request, deadline: .distantFuture))
            _ = try decoder.decode(Payload.self, from: body)
        }
    }

    /// `URLSession.data(for:)` as ``bareURLSession(_:baseURL:)``, with the
    /// request made for every call from the base URL and the path.
    static func bareURLSessionBuildingURL(_ session: URLSession, baseURL: URL) -> BenchOperation {
        let decoder = JSONDecoder()
        return {
            let (data, _) = try await session.data(for: URLRequest(url: baseURL.appendingPathComponent("json")))
            _ = try decoder.decode(Payload.self, from: data)
        }
    }

    /// `HTTPClient.execute` plus collecting the body and `JSONDecoder`.
    static func bareAsyncHTTPClient(_ client: HTTPClient, baseURL: URL) -> BenchOperation {
        let request = HTTPClientRequest(url: baseURL.appendingPathComponent("json").absoluteString)
        let decoder = JSONDecoder()
        return {
            let body = try await collect(client.execute(request, deadline: .distantFuture))
            _ = try decoder.decode(Payload.self, from: body)
        }
    }

    /// `HTTPClient.execute` plus collecting the body, as the transport returns it.
    static func bareAsyncHTTPClientData(_ client: HTTPClient, baseURL: URL) -> BenchOperation {
        let request = HTTPClientRequest(url: baseURL.appendingPathComponent("json").absoluteString)
        return { _ = try await collect(client.execute(request, deadline: .distantFuture)) }
    }

    /// The same request through AsyncHTTPClient's delegate API (the one
    /// `AsyncHTTPClientTransport` uses, to see every chunk as it arrives on
    /// the event loop): a delegate that collects the body into `Data` and
    /// resumes a continuation. The bare API against the bare API: what the
    /// transport's choice of API costs by itself.
    static func bareAsyncHTTPClientDelegate(_ client: HTTPClient, baseURL: URL,
                                            eventLoop: HTTPClient.EventLoopPreference = .indifferent,
                                            decodes: Bool = false) -> BenchOperation {
        let url = baseURL.appendingPathComponent("json").absoluteString
        let decoder = JSONDecoder()
        return {
            let request = try HTTPClient.Request(url: url)
            let collector = Collector()
            let body = try await withCheckedThrowingContinuation { continuation in
                collector.continuation = continuation
                _ = client.execute(request: request, delegate: collector, eventLoop: eventLoop)
            }
            if decodes { _ = try decoder.decode(Payload.self, from: body) }
        }
    }

    /// Collects a body; touched only on the task's event loop (and by the
    /// caller before the request starts).
    final class Collector: HTTPClientResponseDelegate, @unchecked Sendable {
        var continuation: CheckedContinuation<Data, any Error>?
        private var body = Data()

        func didReceiveBodyPart(task: HTTPClient.Task<Data>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            body.append(contentsOf: buffer.readableBytesView)
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveError(task: HTTPClient.Task<Data>, _ error: any Error) {
            continuation?.resume(throwing: error)
            continuation = nil
        }

        func didFinishRequest(task: HTTPClient.Task<Data>) throws -> Data {
            continuation?.resume(returning: body)
            continuation = nil
            return body
        }
    }

    private static func collect(_ response: HTTPClientResponse) async throws -> Data {
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return Data(buffer.readableBytesView)
    }

    /// `URLSession.data(for:)` alone.
    static func bareURLSessionData(_ session: URLSession, baseURL: URL) -> BenchOperation {
        let request = URLRequest(url: baseURL.appendingPathComponent("json"))
        return { _ = try await session.data(for: request) }
    }

    /// `URLSession.data(for:delegate:)` with a task delegate that only counts
    /// the body's bytes as they arrive: the least any client needs to stop a
    /// body at a limit before it is all in memory (what `URLSessionTransport`
    /// does through its session's delegate). The bare API against the bare
    /// API: what seeing each chunk costs by itself.
    static func bareURLSessionDelegate(_ session: URLSession, baseURL: URL, decodes: Bool = false) -> BenchOperation {
        let request = URLRequest(url: baseURL.appendingPathComponent("json"))
        let decoder = JSONDecoder()
        return {
            let (data, _) = try await session.data(for: request, delegate: ByteCounter())
            if decodes { _ = try decoder.decode(Payload.self, from: data) }
        }
    }
}

extension Clients {
    /// A session whose own delegate collects each task's body and resumes
    /// its caller when the task completes: the structure
    /// `URLSessionTransport` has (one session-level data delegate, a data
    /// task, a continuation), with nothing else, decoding the payload.
    static func bareURLSessionSessionDelegate(baseURL: URL) -> BenchClient {
        let collector = SessionCollector()
        let session = URLSession(configuration: ClientSet.sessionConfiguration, delegate: collector, delegateQueue: nil)
        let request = URLRequest(url: baseURL.appendingPathComponent("json"))
        let decoder = JSONDecoder()
        return BenchClient(operation: {
            let data = try await withCheckedThrowingContinuation { continuation in
                collector.start(session.dataTask(with: request), continuation)
            }
            _ = try decoder.decode(Payload.self, from: data)
        }, shutdown: { session.finishTasksAndInvalidate() })
    }
}

/// A session delegate that collects each task's body (see
/// ``Clients/bareURLSessionSessionDelegate(baseURL:)``).
private final class SessionCollector: NSObject, URLSessionDataDelegate, Sendable {
    private let bodies = Locked<[Int: (body: Data, continuation: CheckedContinuation<Data, any Error>)]>([:])

    func start(_ task: URLSessionTask, _ continuation: CheckedContinuation<Data, any Error>) {
        bodies.withLock { $0[task.taskIdentifier] = (Data(), continuation) }
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bodies.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = bodies.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error { entry.continuation.resume(throwing: error) } else { entry.continuation.resume(returning: entry.body) }
    }
}

/// A task delegate that counts the body's bytes (see
/// ``Clients/bareURLSessionDelegate(_:baseURL:)``).
private final class ByteCounter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Written on the session's serial delegate queue only.
    private var received = 0

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received += data.count
    }
}

// MARK: - The pairs

/// One client of a pair, made for one round: its request and how to release it.
struct BenchClient: Sendable {
    let operation: BenchOperation
    let shutdown: @Sendable () async -> Void
}

/// Makes a client of one side with a session or connection pool of its own.
typealias ClientFactory = @Sendable () -> BenchClient

/// A Courier client and the bare client it is compared with, each made anew
/// (its own session or connection pool, configured alike) for every round.
///
/// How a pool's connections happen to sit on the event loops, or a session's
/// on its threads, moves a client's CPU per request by up to a third for as
/// long as the client lives: two bare clients made alike, measured in the
/// same rounds, differed by 1.33x in process and 1.41x against nginx at 32
/// concurrent. A client kept for a whole run would give one draw of that per
/// side, so each round makes every side's client anew, and the bare side's
/// second run (the noise floor) is a client of its own too, not the first
/// one measured again.
struct ClientPair: Sendable {
    var name: String
    var courier: ClientFactory
    var bare: ClientFactory
}

/// The clients of one run against one server.
struct ClientSet: Sendable {
    let baseURL: URL

    /// The configuration of every bare session: the one
    /// `URLSessionTransport` gives its own session, which has no URL cache.
    /// A cache's work on the bare side only would hide as much of the
    /// transport's own cost (measured in Benchmarks/README.md).
    static var sessionConfiguration: URLSessionConfiguration { URLSessionTransport.defaultSessionConfiguration }

    /// A side on a new `URLSession`, configured as the transport configures its own.
    static func onSession(_ operation: @escaping @Sendable (URLSession) -> BenchOperation) -> ClientFactory {
        {
            let session = URLSession(configuration: sessionConfiguration)
            return BenchClient(operation: operation(session), shutdown: { session.finishTasksAndInvalidate() })
        }
    }

    /// A side on a new AsyncHTTPClient client, configured as the transport
    /// configures the one it owns (no redirects, decompression or tracing
    /// spans by the client), for either side of the AsyncHTTPClient pairs.
    ///
    /// With the client's spans on, both sides pay for them, and the
    /// delegate API that the transport uses pays more than the async API
    /// (an instruction count of both is in the README).
    static func onHTTPClient(tls: TLSConfiguration? = nil,
                             _ operation: @escaping @Sendable (HTTPClient) -> BenchOperation) -> ClientFactory {
        {
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.redirectConfiguration = .disallow
            configuration.decompression = .disabled
            configuration.tracing.tracer = nil
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            return BenchClient(operation: operation(client), shutdown: { try? await client.shutdown() })
        }
    }

    /// A side on a new `URLSessionTransport` (its session is invalidated when
    /// the transport is released).
    static func onURLSessionTransport(_ operation: @escaping @Sendable (URLSessionTransport) -> BenchOperation) -> ClientFactory {
        { BenchClient(operation: operation(URLSessionTransport()), shutdown: {}) }
    }

    /// Item 1: Courier (four no-op plugins, Codable) against the bare client
    /// plus `JSONDecoder`, one pair per transport.
    var pipelinePairs: [ClientPair] {
        let baseURL = baseURL
        return [
            ClientPair(
                name: "URLSession",
                courier: Self.onURLSessionTransport { Clients.courier(on: $0, baseURL: baseURL) },
                bare: Self.onSession { Clients.bareURLSession($0, baseURL: baseURL) }
            ),
            ClientPair(
                name: "AsyncHTTPClient",
                courier: Self.onHTTPClient { Clients.courier(on: AsyncHTTPClientTransport(client: $0), baseURL: baseURL) },
                bare: Self.onHTTPClient { Clients.bareAsyncHTTPClient($0, baseURL: baseURL) }
            ),
        ]
    }

    /// Item 2: each transport alone against its bare client.
    var transportPairs: [ClientPair] {
        let baseURL = baseURL
        return [
            ClientPair(
                name: "URLSessionTransport vs URLSession",
                courier: Self.onURLSessionTransport { Clients.transportOnly($0, baseURL: baseURL) },
                bare: Self.onSession { Clients.bareURLSessionData($0, baseURL: baseURL) }
            ),
            ClientPair(
                name: "AsyncHTTPClientTransport vs AsyncHTTPClient",
                courier: Self.onHTTPClient { Clients.transportOnly(AsyncHTTPClientTransport(client: $0), baseURL: baseURL) },
                bare: Self.onHTTPClient { Clients.bareAsyncHTTPClientData($0, baseURL: baseURL) }
            ),
        ]
    }
}

/// The HTTPS pairs, against a server whose certificate comes from the tests'
/// private root: AsyncHTTPClient configured to trust that root, against the
/// transport making its own client with a `ServerTrust` that names the root (as
/// a user would write it: a client passed in with that trust would make every
/// request carry its own TLS configuration, which AsyncHTTPClient hashes each
/// time); and `URLSession`, bare and under the transport, where the system
/// trusts the root.
/// FoundationNetworking on Linux trusts the system's bundle alone, so there
/// the URLSession pair runs only under `Tests/with-test-root-trusted`.
struct SecureClientSet: Sendable {
    let baseURL: URL
    private let tls: TLSConfiguration
    private let serverTrust: ServerTrust

    /// Whether `URLSession` trusts the root: on Apple platforms never without
    /// a `ServerTrust`; on Linux when the system's bundle holds it.
    static var urlSessionTrustsRoot: Bool {
        ProcessInfo.processInfo.environment["COURIER_SYSTEM_TRUSTS_TEST_ROOT"] == "1"
    }

    init(baseURL: URL) throws {
        self.baseURL = baseURL
        let root = try TestCertificateFiles.rootDER()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates([try NIOSSLCertificate(bytes: Array(root), format: .der)])]
        self.tls = tls
        serverTrust = ServerTrust.system.trusting(rootCertificate: root)
    }

    /// Item 2 over TLS: each transport against its bare client, connections kept alive.
    var pairs: [ClientPair] {
        let (baseURL, tls, serverTrust) = (baseURL, tls, serverTrust)
        var pairs = [
            ClientPair(
                name: "AsyncHTTPClientTransport vs AsyncHTTPClient, HTTPS",
                courier: {
                    let transport = AsyncHTTPClientTransport(configuration: .init(serverTrust: serverTrust))
                    return BenchClient(operation: Clients.transportOnly(transport, baseURL: baseURL),
                                       shutdown: { try? await transport.shutdown() })
                },
                bare: ClientSet.onHTTPClient(tls: tls) { Clients.bareAsyncHTTPClientData($0, baseURL: baseURL) }
            ),
        ]
        if Self.urlSessionTrustsRoot {
            pairs.append(ClientPair(
                name: "URLSessionTransport vs URLSession, HTTPS",
                courier: ClientSet.onURLSessionTransport { Clients.transportOnly($0, baseURL: baseURL) },
                bare: ClientSet.onSession { Clients.bareURLSessionData($0, baseURL: baseURL) }
            ))
        }
        return pairs
    }
}
