import Courier
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// Finds out why a server's certificate was refused. BoringSSL, under
/// AsyncHTTPClient, says only `CERTIFICATE_VERIFY_FAILED`; a person needs to
/// know whether the certificate expired, signed itself or came from an
/// unknown authority. After such a failure, and only then, this makes one
/// more handshake with the server that keeps its certificates and sends
/// nothing; for a lone certificate, one more that trusts it as its own root,
/// to see whether it signed itself.
///
/// A handshake cut short for another reason (the connection refused, reset or
/// closed) tells nothing about the certificate: that second one is tried once
/// more while time is left, and if it still cannot finish the reason is "the
/// handshake failed" with what happened (or that time ran out), never a guess.
///
/// It never presents a client certificate: the server was just refused, and
/// a certificate tells who the user is. A caller whose call ends first (a
/// cancelled task, the call's deadline) stops waiting for it at once.
///
/// Bounded: its handshakes take at most ``timeLimit`` in all, after which its
/// connection is closed and the reason is "the handshake failed". The limit
/// counts each handshake from its connecting to its end on the event loop,
/// not the time the diagnosis waits to be scheduled between them, so a busy
/// machine does not use it up. Requests that fail at once against the same
/// server share one diagnosis: each transport keeps its own.
final class TrustDiagnosis: Sendable {
    /// The longest a diagnosis takes, connecting included: a handshake on
    /// loopback takes milliseconds, one across the world a second, and one
    /// under a thread sanitizer several.
    static let timeLimit = TimeAmount.seconds(10)

    private struct Key: Hashable {
        let host: String
        let port: Int
        let pinned: Bool
        let configuration: BestEffortTLSKey
    }

    /// The diagnoses running now, shared by the calls that failed at once.
    private let inFlight = Locked<[Key: Task<ServerTrustFailure.Reason, Never>]>([:])

    init() {}

    /// The reason `host` failed verification under `configuration`, found
    /// with handshakes that take at most `limit` in all (tests give a long
    /// one, or a short one to reach it), or a reason that says the call ended
    /// first when `control` is aborted before.
    func reason(host: String, port: Int, configuration: TLSConfiguration, pinned: Bool,
                       on group: any EventLoopGroup, within limit: TimeAmount = timeLimit,
                       until control: TransferControl? = nil) async -> ServerTrustFailure.Reason {
        let configuration = Self.withoutClientCertificate(configuration)
        let key = Key(host: host, port: port, pinned: pinned, configuration: BestEffortTLSKey(configuration))
        let task = inFlight.withLock { flights in
            if let running = flights[key] { return running }
            let task = Task { [inFlight] in
                let reason = await Self.diagnose(host: host, port: port, configuration: configuration, pinned: pinned,
                                                 on: group, within: limit)
                _ = inFlight.withLock { $0.removeValue(forKey: key) }
                return reason
            }
            flights[key] = task
            return task
        }
        guard let control else { return await task.value }
        return await Self.first(of: task, orAbortOf: control)
    }

    private static func withoutClientCertificate(_ configuration: TLSConfiguration) -> TLSConfiguration {
        var configuration = configuration
        configuration.certificateChain = []
        configuration.privateKey = nil
        return configuration
    }

    /// What `task` returns, or, as soon as `control` is aborted, a reason
    /// saying the call ended first. The diagnosis goes on for any other
    /// caller sharing it, within its own time limit.
    private static func first(of task: Task<ServerTrustFailure.Reason, Never>,
                              orAbortOf control: TransferControl) async -> ServerTrustFailure.Reason {
        let ended = ServerTrustFailure.Reason.handshakeFailed(
            "CERTIFICATE_VERIFY_FAILED; the call ended before the certificate could be examined again")
        let waiter = Locked<CheckedContinuation<ServerTrustFailure.Reason, Never>?>(nil)
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            let finish: @Sendable (ServerTrustFailure.Reason) -> Void = { reason in
                waiter.withLock { pending in
                    pending?.resume(returning: reason)
                    pending = nil
                }
            }
            Task { finish(await task.value) }
            control.onAbort { finish(ended) }
        }
    }

    private static func diagnose(host: String, port: Int, configuration: TLSConfiguration, pinned: Bool,
                                 on group: any EventLoopGroup, within limit: TimeAmount) async -> ServerTrustFailure.Reason {
        var budget = limit
        var capturing = configuration
        capturing.certificateVerification = .noHostnameVerification
        // What ended a handshake that did not finish: the time, once spent,
        // whatever the connection then did.
        func why(_ detail: String) -> String {
            budget > .zero ? detail : "no answer within the diagnosis's \(seconds(limit)) s"
        }
        let first = await handshake(host: host, port: port, configuration: capturing, capture: true, budget: &budget, on: group)
        guard case .refused(let chain) = first, let leaf = chain.first else {
            let what = if case .failed(let detail) = first { " (\(why(detail)))" } else { "" }
            return .handshakeFailed("CERTIFICATE_VERIFY_FAILED; the server's certificate could not be read again to say why\(what)")
        }
        let now = time(nil)
        if leaf.notValidAfter < now { return .expired }
        if leaf.notValidBefore > now { return .notYetValid }
        if pinned { return .pinMismatch }
        guard chain.count == 1 else { return .untrustedRoot }
        // One certificate: self-signed if a handshake trusting it as its own
        // root succeeds, from an unknown authority if that one is refused too.
        var selfTrusting = capturing
        selfTrusting.trustRoots = .certificates([leaf])
        selfTrusting.additionalTrustRoots = []
        var cutShort: String?
        for _ in 0..<2 where budget > .zero {
            switch await handshake(host: host, port: port, configuration: selfTrusting, capture: false, budget: &budget, on: group) {
            case .established: return .selfSigned
            case .refused: return .untrustedRoot
            case .failed(let what): cutShort = what
            }
        }
        return .handshakeFailed("CERTIFICATE_VERIFY_FAILED; the certificate signed itself or its authority is unknown, "
            + "and the handshake that would tell which could not finish: \(why(cutShort ?? ""))")
    }

    private enum Outcome {
        case established
        /// The certificate was refused; with the server's chain when it was
        /// kept.
        case refused([NIOSSLCertificate])
        /// The handshake did not finish for another reason, said in words.
        case failed(String)
    }

    /// One TLS handshake and a close, within `budget`, less the time it took
    /// (from connecting to its end on the event loop). With `capture`, the
    /// server's chain is kept and the handshake refused.
    private static func handshake(host: String, port: Int, configuration: TLSConfiguration, capture: Bool,
                                  budget: inout TimeAmount, on group: any EventLoopGroup) async -> Outcome {
        let start = NIODeadline.now()
        let deadline = start + budget
        var finished: NIODeadline?
        defer { budget = budget - ((finished ?? .now()) - start) }
        let chain = Locked<[NIOSSLCertificate]>([])
        let serverName = isIPAddress(host) ? nil : host
        let end: HandshakeEnd
        do {
            guard let bootstrap = ClientBootstrap(validatingGroup: group) else {
                return .failed("the transport's event loops cannot make a connection")
            }
            let context = try NIOSSLContext(configuration: configuration)
            let watcher = Locked<HandshakeWatcher?>(nil)
            let channel = try await bootstrap
                .connectTimeout(max(.milliseconds(1), deadline - .now()))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = capture
                            ? try NIOSSLClientHandler(context: context, serverHostname: serverName,
                                                      customVerificationCallback: { (certificates, promise: EventLoopPromise<NIOSSLVerificationResult>) in
                                chain.withLock { $0 = certificates }
                                promise.succeed(NIOSSLVerificationResult.failed)
                            })
                            : try NIOSSLClientHandler(context: context, serverHostname: serverName)
                        let handshakeWatcher = HandshakeWatcher(on: channel.eventLoop)
                        watcher.withLock { $0 = handshakeWatcher }
                        try channel.pipeline.syncOperations.addHandler(handler)
                        try channel.pipeline.syncOperations.addHandler(handshakeWatcher)
                    }
                }
                .connect(host: host, port: port).get()
            guard let done = watcher.withLock({ $0?.done }) else {
                channel.close(promise: nil as EventLoopPromise<Void>?)
                return .failed("the connection was set up without its handshake watcher")
            }
            // A server that stalls the handshake is closed at the deadline.
            let limit = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil as EventLoopPromise<Void>?) }
            let finish = try? await done.futureResult.get()
            finished = finish?.at
            end = finish?.end ?? .cutShort("the handshake was abandoned")
            limit.cancel()
            channel.close(promise: nil as EventLoopPromise<Void>?)
        } catch {
            // The connection failed, or the refused handshake closed it.
            end = .cutShort("the connection failed: \(error)")
        }
        let captured = chain.withLock { $0 }
        switch end {
        case .completed: return .established
        case .refused: return .refused(captured)
        case .cutShort(let what):
            // A kept chain means the certificate was seen and refused, however
            // the connection then ended.
            return captured.isEmpty ? .failed(what) : .refused(captured)
        }
    }

    /// `amount` in seconds, whole when it is.
    private static func seconds(_ amount: TimeAmount) -> String {
        amount.nanoseconds % 1_000_000_000 == 0
            ? "\(amount.nanoseconds / 1_000_000_000)" : "\(Double(amount.nanoseconds) / 1e9)"
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

/// A TLS configuration as a dictionary key, by the parts a diagnosis uses.
private struct BestEffortTLSKey: Hashable {
    let trustRoots: NIOSSLTrustRoots?
    let additionalTrustRoots: [NIOSSLAdditionalTrustRoots]

    init(_ configuration: TLSConfiguration) {
        trustRoots = configuration.trustRoots
        additionalTrustRoots = configuration.additionalTrustRoots
    }
}

/// How a handshake ended.
private enum HandshakeEnd: Sendable {
    case completed
    /// BoringSSL refused the server's certificate.
    case refused
    /// Anything else first: an error, the connection closing, the handler
    /// leaving the pipeline; said in words.
    case cutShort(String)
}

/// Completes `done` with how the handshake ended and when (the first of
/// these; a connection attempt that never became active says nothing else).
private final class HandshakeWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let done: EventLoopPromise<(end: HandshakeEnd, at: NIODeadline)>

    init(on eventLoop: any EventLoop) {
        done = eventLoop.makePromise()
    }

    private func finish(_ end: HandshakeEnd) {
        done.succeed((end, .now()))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { finish(.completed) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let refused = AsyncHTTPClientTransport.refusedCertificate(error) == .verification
        finish(refused ? .refused : .cutShort("\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.cutShort("the connection closed during the handshake"))
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(.cutShort("the connection was closed during the handshake"))
    }
}
