import AsyncHTTPClient
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

#if !AsyncHTTPClient
#error("CourierAsyncHTTPClient needs the package trait \"AsyncHTTPClient\": add it to the traits of your Courier dependency.")
#endif

/// A ``Transport`` on AsyncHTTPClient: on Linux several times faster than
/// `URLSessionTransport`, and behaving the same (bodies, errors, progress,
/// redirects, time-outs, cancellation).
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let provider = Provider<GitHub>(transport: transport)
/// // ... when done with it:
/// try await transport.shutdown()
/// ```
///
/// It streams request bodies (files from disk in chunks), streams downloads to
/// disk in bounded memory, follows redirects itself (301, 302 and 303 become a
/// `GET` without body; 307 and 308 keep method and body; credentials never
/// follow a redirect to another origin), and leaves decompression to
/// `CourierGzip` unless ``Configuration/decompressesResponses`` is set.
///
/// A request with nothing to stream (no file either way, no progress handler,
/// a body of at most 64 KiB) is collected whole on the event loop and handed
/// over once; anything else streams in a task of its own. Both ways honour the
/// idle time-out and task cancellation alike.
public final class AsyncHTTPClientTransport: Transport {
    /// The configuration in force.
    public let configuration: Configuration
    private let client: HTTPClient
    private let ownsClient: Bool
    /// Every transfer's idle time-out, on one timer.
    private let sweeper: IdleSweeper

    /// Creates a transport on a client you own.
    ///
    /// The transport never shuts `client` down. It follows redirects itself, so
    /// give it a client whose `redirectConfiguration` is `.disallow`; otherwise
    /// the client follows them first, with its own rules.
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - configuration: Redirects, decompression and the default time-out.
    public init(client: HTTPClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
        self.ownsClient = false
        self.sweeper = IdleSweeper(eventLoop: client.eventLoopGroup.next())
    }

    /// Creates a transport with its own client on the shared singleton event
    /// loop group.
    ///
    /// The owner must call ``shutdown()`` before releasing the transport;
    /// AsyncHTTPClient requires every client it creates to be shut down.
    /// - Parameter configuration: Redirects, decompression and the default time-out.
    public init(configuration: Configuration = Configuration()) {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.decompression = configuration.decompressesResponses ? .enabled(limit: .none) : .disabled
        self.client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        self.configuration = configuration
        self.ownsClient = true
        self.sweeper = IdleSweeper(eventLoop: client.eventLoopGroup.next())
    }

    /// Shuts down the client this transport created; does nothing for a client
    /// passed in, which stays the caller's to shut down.
    /// - Throws: The client's error when shutting down fails (for example,
    ///   when it was already shut down).
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
    }

    public func send(_ request: TransportRequest) async throws -> Response {
        let timeout = request.timeout ?? configuration.timeout
        var current = request.urlRequest
        var uploadFile = request.uploadFile
        var redirects = 0
        while true {
            let hop: Hop
            let (hopRequest, hopFile) = (current, uploadFile)
            do {
                if BufferedExchange.fits(hopRequest, uploadFile: hopFile, request: request) {
                    hop = try await transmitBuffered(hopRequest, timeout: timeout)
                } else {
                    hop = try await Watchdog.run(idleTimeout: timeout, sweeper: sweeper) { activity in
                        try await self.transmit(hopRequest, uploadFile: hopFile, request: request, activity: activity)
                    }
                }
            } catch {
                // Cancelling tears the connection down, which AsyncHTTPClient may
                // report as a closed connection; the caller asked for it.
                throw Task.isCancelled ? NetworkError.cancelled : ErrorClassifier.networkError(for: error)
            }
            switch hop {
            case .finished(let response):
                return try response.makeResponse(destination: request.downloadDestination)
            case .redirect(let next):
                redirects += 1
                guard redirects <= configuration.maximumRedirects else {
                    throw NetworkError.transport(RedirectFailure.tooManyRedirects(configuration.maximumRedirects))
                }
                if !next.keepsBody { uploadFile = nil }
                current = next.request
            }
        }
    }

    // MARK: - One transmission

    /// What one request-response exchange ended with.
    enum Hop: Sendable {
        case finished(ReceivedResponse)
        case redirect(Redirect)
    }

    private func transmit(
        _ urlRequest: URLRequest,
        uploadFile: URL?,
        request: TransportRequest,
        activity: Activity
    ) async throws -> Hop {
        guard let url = urlRequest.url else { throw NetworkError.requestBuildFailed(URLError(.badURL)) }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET")
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            outgoing.headers.add(name: name, value: value)
        }
        let response = try await executeWaitingForConnection(outgoing) { outgoing in
            outgoing.body = try RequestBody.make(
                data: urlRequest.httpBody, file: uploadFile, progress: request.progress, activity: activity)
        }
        activity.touch()
        let head = ResponseHead(response, url: url, clientDecompresses: configuration.decompressesResponses)
        if configuration.followsRedirects, let redirect = Redirect.next(after: head, for: urlRequest) {
            for try await _ in response.body { activity.touch() }
            return .redirect(redirect)
        }
        let sink = try BodySink(toFile: request.downloadDestination != nil)
        do {
            var received: Int64 = 0
            for try await chunk in response.body {
                try sink.write(chunk)
                received += Int64(chunk.readableBytes)
                activity.touch()
                request.progress?(head.downloadProgress(received: received))
            }
        } catch {
            sink.discard()
            throw error
        }
        return .finished(ReceivedResponse(head: head, request: urlRequest, body: try sink.finish()))
    }

    /// One exchange through ``BufferedExchange``: the body arrives whole.
    private func transmitBuffered(_ urlRequest: URLRequest, timeout: TimeInterval) async throws -> Hop {
        guard let url = urlRequest.url else { throw NetworkError.requestBuildFailed(URLError(.badURL)) }
        let (head, body) = try await BufferedExchange.run(urlRequest, url: url, on: client, idleTimeout: timeout, sweeper: sweeper)
        let responseHead = ResponseHead(status: head.status, headers: head.headers, url: url,
                                        clientDecompresses: configuration.decompressesResponses)
        if configuration.followsRedirects, let redirect = Redirect.next(after: responseHead, for: urlRequest) {
            return .redirect(redirect)
        }
        let data = body.map { Data($0.readableBytesView) } ?? Data()
        return .finished(ReceivedResponse(head: responseHead, request: urlRequest, body: .memory(data)))
    }

    /// Executes `outgoing` through ``requeuingPoolTimeouts(_:)``, with a
    /// fresh body for every attempt.
    private func executeWaitingForConnection(
        _ outgoing: HTTPClientRequest,
        body: @escaping (inout HTTPClientRequest) throws -> Void
    ) async throws -> HTTPClientResponse {
        try await requeuingPoolTimeouts {
            var outgoing = outgoing
            try body(&outgoing)
            return try await self.client.execute(outgoing, deadline: .distantFuture)
        }
    }
}

/// Runs `attempt` again whenever AsyncHTTPClient gives up waiting for a pooled
/// connection; both of the transport's paths send through it.
///
/// AsyncHTTPClient fails a request that waited longer than its connect
/// time-out (10 s by default) for one of its connections (8 per host by
/// default) with `getConnectionFromPoolTimeout`, even though the request never
/// left. URLSession keeps such a request queued until the request's own
/// time-out, and so does this transport: the request goes back into the queue,
/// and the idle time-out around the exchange ends the wait with
/// ``NetworkError/timedOut(_:)`` after the target's time-out. A connection that
/// cannot be made fails at once with its own error: AsyncHTTPClient reports the
/// connect failure instead of the pool time-out.
func requeuingPoolTimeouts<Value>(_ attempt: () async throws -> Value) async throws -> Value {
    while true {
        do {
            return try await attempt()
        } catch let error as HTTPClientError where error == .getConnectionFromPoolTimeout {
            try Task.checkCancellation()
        }
    }
}
