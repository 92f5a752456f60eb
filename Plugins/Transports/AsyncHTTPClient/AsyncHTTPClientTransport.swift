import AsyncHTTPClient
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if !AsyncHTTPClient
#error("CourierAsyncHTTPClient needs the package trait \"AsyncHTTPClient\": add it to the traits of your Courier dependency.")
#endif

/// A `Transport` on AsyncHTTPClient: on Linux several times faster than
/// `URLSessionTransport`, and behaving the same, since redirects, time-outs,
/// limits, downloads and error classification live in Courier's transfer
/// stage, not here.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let provider = Provider<GitHub>(transport: transport)
/// // ... when done with it:
/// try await transport.shutdown()
/// ```
///
/// Each request goes through AsyncHTTPClient's delegate API: bodies stream
/// both ways with back-pressure (a file is read in 64 KiB chunks as the
/// connection takes them), a body kept in memory is collected on the event
/// loop and handed over once, and the transfer stage stops a transfer by
/// cancelling its AsyncHTTPClient task.
///
/// A delegate runs on the event loop the transport names for it, and every
/// callback crosses threads when that is not the loop of the connection. The
/// transport names the loop where it has the fewest requests under way (the
/// caller's own, when it runs on one of the client's loops), so a sequence of
/// requests keeps to one loop and one connection, and concurrent ones spread
/// over the loops; the connection pool prefers an idle connection on the named
/// loop and opens new ones there.
public final class AsyncHTTPClientTransport: Transport {
    /// The configuration in force.
    public let configuration: Configuration
    private let client: HTTPClient
    private let ownsClient: Bool
    private let tls: TLSPolicy
    /// Whether the client follows redirects itself (one passed in that was
    /// not told not to): then every request fails before it is sent.
    private let clientFollowsRedirects: Bool
    /// Whether the client decodes bodies itself (one passed in whose
    /// `decompression` is on): then every request fails before it is sent.
    private let clientDecompresses: Bool
    /// Whether the client connects through a proxy (one passed in): then a
    /// refused certificate is not diagnosed, as the diagnosis would connect
    /// around the proxy.
    private let clientUsesProxy: Bool
    /// Which event loop each request's delegate runs on.
    let loops: EventLoopChoice
    /// Finds out why a certificate was refused; calls that fail at once share one.
    private let trustDiagnosis = TrustDiagnosis()

    /// Creates a transport on a client you own.
    ///
    /// The transport never shuts `client` down. Give it a client whose
    /// `redirectConfiguration` is `.disallow` (the transfer stage follows
    /// redirects under its own rules, which refuse schemes other than http and
    /// https): with a client that follows redirects itself, every request
    /// fails before anything is sent, with
    /// `NetworkError.transport(ClientFollowsRedirects)`. Its `decompression`
    /// must be `.disabled` (the transport decodes bodies itself, as the
    /// provider's `TransferConfiguration.decodesContent` says, under the
    /// provider's limits); otherwise every request fails the same way, with
    /// `NetworkError.transport(ClientDecompresses)`. Its
    /// `connectionPool.retryConnectionEstablishment` should be
    /// `false` (otherwise a closed port or an unknown host fails only after the
    /// client's connect time-out).
    ///
    /// With a `serverTrust` other than `.system`, every HTTPS request to a
    /// host carries its own TLS configuration, since AsyncHTTPClient does not
    /// say which one `client` has; AsyncHTTPClient then hashes that
    /// configuration, certificates included, on every request. A transport
    /// that makes its own client (``init(configuration:)``) builds the trust
    /// into it and pays nothing per request.
    /// - Parameters:
    ///   - client: The client that sends the requests.
    ///   - configuration: Which HTTPS servers are trusted.
    public init(client: HTTPClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
        self.ownsClient = false
        self.clientFollowsRedirects = Self.followsRedirects(client)
        self.clientDecompresses = Self.decompresses(client)
        self.clientUsesProxy = Self.usesProxy(client)
        self.tls = TLSPolicy(configuration.serverTrust, base: configuration.tlsConfiguration, clientHasBase: false)
        self.loops = EventLoopChoice(group: client.eventLoopGroup)
    }

    /// Creates a transport with its own client on the shared singleton event
    /// loop group: redirects off, and a connection that cannot be made (a
    /// closed port, an unknown host) fails at once instead of being retried
    /// until the connect time-out.
    ///
    /// The client records no spans of its own: it would start them on its
    /// event loop, outside the task and so outside the call's trace, one per
    /// hop beside the call's. The tracing plugin (`CourierTracing`) traces
    /// each call, its redirects and retries included.
    ///
    /// Call `shutdown()` when you are done with the transport: it returns once
    /// the client has closed its connections. A transport released without it
    /// starts the same shutdown itself and does not wait for it, so a
    /// forgotten call neither trips AsyncHTTPClient's check (a client released
    /// while running stops a debug build) nor leaves connections open.
    /// - Parameter configuration: Which HTTPS servers are trusted.
    public init(configuration: Configuration = Configuration()) {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .disallow
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        let tls = TLSPolicy(configuration.serverTrust, base: configuration.tlsConfiguration, clientHasBase: true)
        clientConfiguration.tlsConfiguration = tls.base
        // The exchange decodes, per request (TransferConfiguration.decodesContent).
        clientConfiguration.decompression = .disabled
        // Spans are the tracing plugin's (see above).
        clientConfiguration.tracing.tracer = nil
        self.client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        self.configuration = configuration
        self.ownsClient = true
        self.clientFollowsRedirects = false
        self.clientDecompresses = false
        self.clientUsesProxy = false
        self.tls = tls
        self.loops = EventLoopChoice(group: client.eventLoopGroup)
    }

    /// Shuts down the client this transport created and returns when its
    /// connections are closed; does nothing for a client passed in, which
    /// stays the caller's to shut down.
    /// - Throws: The client's error when shutting down fails (for example,
    ///   when it was already shut down).
    public func shutdown() async throws {
        guard ownsClient else { return }
        try await client.shutdown()
    }

    /// A client this transport created is shut down when the transport goes,
    /// if `shutdown()` was not called: AsyncHTTPClient stops a debug build
    /// that releases a running client it made. Each request's delegate holds
    /// the transport for as long as AsyncHTTPClient holds the delegate, at
    /// least until the request's task ends, so this runs only when no call is
    /// under way. The shutdown holds the client until the connection
    /// pool has closed, and its outcome has nobody to go to (a client already
    /// shut down says so, and that is fine).
    deinit {
        guard ownsClient else { return }
        client.shutdown(queue: .global()) { _ in }
    }

    public func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        // AsyncHTTPClient fails a request that waited longer than its connect
        // time-out for a pooled connection although nothing was sent; such a
        // request goes back into the queue, so only the transfer stage's
        // time-out ends the wait, as with URLSession.
        while true {
            // Each attempt is built and started in a function of its own,
            // which returns only its exchange: what it builds (the client's
            // request, its header fields and TLS configuration) then takes
            // no room in this function's frame, which the call keeps for as
            // long as it waits.
            let exchange = try start(request)
            do {
                return try await exchange.response()
            } catch let error as HTTPClientError where error == .getConnectionFromPoolTimeout && !request.control.isAborted {
                continue
            } catch {
                if let refused = Self.refusedCertificate(error) {
                    throw await trustFailure(refused, url: request.url, control: request.control)
                }
                // A body stream's reader fails the request with its own error.
                if let error = error as? NetworkError { throw error }
                throw NetworkError(transportError: Self.foundationError(for: error))
            }
        }
    }

    /// Builds one attempt of `request` and starts it on its event loop.
    @inline(never)
    private func start(_ request: TransportRequest) throws(NetworkError) -> Exchange {
        if clientFollowsRedirects { throw .transport(ClientFollowsRedirects()) }
        if clientDecompresses { throw .transport(ClientDecompresses()) }
        let tlsConfiguration = try tls.configuration(for: request.url)
        var headers = HTTPHeaders()
        for (name, value) in request.urlRequest.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        if !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: request.acceptEncoding)
        }
        // Each attempt has a body of its own: the end of an attempt ends the
        // reading of a streamed body, which for an attempt that timed out in
        // the queue never began.
        let (body, producer) = RequestBodies.make(for: request, on: client.eventLoopGroup, joinLimit: configuration.uploadJoinLimit)
        let outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(url: request.url, method: NIOHTTP1.HTTPMethod(rawValue: request.method),
                                              headers: headers, body: body, tlsConfiguration: tlsConfiguration)
        } catch {
            throw NetworkError(transportError: Self.foundationError(for: error))
        }
        let (preference, slot) = loops.take()
        let exchange = Exchange(request: request, transport: self, loop: slot.map { (loops, $0) }, producer: producer)
        // Started on the loop its delegate runs on, in one hop: the client
        // then hands the request to a connection on that loop at once, and
        // the callback for the task's end is added on the task's own loop.
        // Added from outside it, that callback would be a second hop onto
        // the loop, which wakes the loop whenever it sleeps.
        let loop = slot.map { loops.loops[$0] } ?? client.eventLoopGroup.any()
        // Heard before the start is scheduled: a loop shut down under its
        // client drops the start, and only the abort ends the call then.
        // Through the start, which lets the exchange go once the task exists
        // (see RequestStart).
        let start = RequestStart(exchange)
        request.control.onAbort { start.stop() }
        let run: @Sendable () -> Void = { [client] in
            let task = client.execute(request: outgoing, delegate: exchange, eventLoop: preference)
            // One callback (one that holds only the exchange needs no
            // allocation of its own).
            task.futureResult.whenComplete { [exchange] result in exchange.taskEnded(result) }
            start.started(task)
        }
        if loop.inEventLoop { run() } else { loop.execute(run) }
        return exchange
    }

    /// `true`: a `RequestBodyStream` is sent as its sequence yields it.
    public var sendsStreamedBodies: Bool { true }
}

// MARK: - Certificate failures

extension AsyncHTTPClientTransport {
    /// How a server certificate was refused, if `error` says it was.
    enum RefusedCertificate {
        /// SwiftNIO SSL's host name check: the reason is known.
        case hostName
        /// BoringSSL's `CERTIFICATE_VERIFY_FAILED`: the reason needs a diagnosis.
        case verification
    }

    /// How `error` refused the server's certificate, or `nil` when it is
    /// another failure.
    static func refusedCertificate(_ error: any Error) -> RefusedCertificate? {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname { return .hostName }
        guard case NIOSSLError.handshakeFailed(let failure) = error,
              String(describing: failure).contains("CERTIFICATE_VERIFY_FAILED") else { return nil }
        return .verification
    }

    /// The failure a person can act on: the host name check says so itself;
    /// for a verification failure, ``TrustDiagnosis`` asks the server once more.
    /// The diagnosis connects on its own, so not for a client that goes
    /// through a proxy; it stops when the call does (`control` aborted: a
    /// cancelled task, the deadline). Not inlined into ``send(_:)``: its
    /// frame would be part of the frame every call keeps while it waits.
    @inline(never)
    private func trustFailure(_ refused: RefusedCertificate, url: URL, control: TransferControl) async -> NetworkError {
        // The configuration the attempt was started with: the transport's
        // trust settings do not change, and the start did not throw.
        let configuration = (try? tls.configuration(for: url)) ?? nil
        let host = url.host ?? ""
        if refused == .hostName {
            return .serverTrustFailed(ServerTrustFailure(host: host, reason: .hostMismatch))
        }
        guard !clientUsesProxy else {
            return .serverTrustFailed(ServerTrustFailure(host: host, reason: .handshakeFailed(
                "CERTIFICATE_VERIFY_FAILED; not diagnosed further, since the client connects through a proxy")))
        }
        let port = url.port ?? 443
        let reason = await trustDiagnosis.reason(
            host: host, port: port, configuration: configuration ?? tls.base ?? .makeClientConfiguration(),
            pinned: configuration != nil && tls.trust.pins(for: host) != nil, on: client.eventLoopGroup, until: control)
        return .serverTrustFailed(ServerTrustFailure(host: host, reason: reason))
    }
}
