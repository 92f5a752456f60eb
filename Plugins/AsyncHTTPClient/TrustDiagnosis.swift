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
/// nothing, and at most one more to see whether the certificate signed itself.
///
/// Bounded: the whole diagnosis takes at most ``timeLimit``, after which its
/// connections are closed and the reason is "the handshake failed"; requests
/// that fail at once against the same server share one diagnosis.
enum TrustDiagnosis {
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

    private static let inFlight = Locked<[Key: Task<ServerTrustFailure.Reason, Never>]>([:])

    /// The reason `host` failed verification under `configuration`.
    static func reason(host: String, port: Int, configuration: TLSConfiguration, pinned: Bool,
                       on group: any EventLoopGroup) async -> ServerTrustFailure.Reason {
        let key = Key(host: host, port: port, pinned: pinned, configuration: BestEffortTLSKey(configuration))
        let task = inFlight.withLock { flights in
            if let running = flights[key] { return running }
            let task = Task {
                let reason = await diagnose(host: host, port: port, configuration: configuration, pinned: pinned, on: group)
                _ = inFlight.withLock { $0.removeValue(forKey: key) }
                return reason
            }
            flights[key] = task
            return task
        }
        return await task.value
    }

    private static func diagnose(host: String, port: Int, configuration: TLSConfiguration, pinned: Bool,
                                 on group: any EventLoopGroup) async -> ServerTrustFailure.Reason {
        let deadline = NIODeadline.now() + timeLimit
        var capturing = configuration
        capturing.certificateVerification = .noHostnameVerification
        let first = await handshake(host: host, port: port, configuration: capturing, capture: true, deadline: deadline, on: group)
        guard case .refused(let chain) = first, let leaf = chain.first else {
            return .handshakeFailed("CERTIFICATE_VERIFY_FAILED; the server's certificate could not be read again to say why")
        }
        let now = time(nil)
        if leaf.notValidAfter < now { return .expired }
        if leaf.notValidBefore > now { return .notYetValid }
        if pinned { return .pinMismatch }
        if chain.count == 1 {
            var selfTrusting = capturing
            selfTrusting.trustRoots = .certificates([leaf])
            selfTrusting.additionalTrustRoots = []
            let second = await handshake(host: host, port: port, configuration: selfTrusting, capture: false, deadline: deadline, on: group)
            if case .established = second { return .selfSigned }
        }
        return .untrustedRoot
    }

    private enum Outcome {
        case established
        case refused([NIOSSLCertificate])
        case failed
    }

    /// One TLS handshake and a close, by `deadline`. With `capture`, the
    /// server's chain is kept and the handshake refused.
    private static func handshake(host: String, port: Int, configuration: TLSConfiguration, capture: Bool,
                                  deadline: NIODeadline, on group: any EventLoopGroup) async -> Outcome {
        let chain = Locked<[NIOSSLCertificate]>([])
        let serverName = isIPAddress(host) ? nil : host
        let established: Bool
        do {
            guard let bootstrap = ClientBootstrap(validatingGroup: group) else { return .failed }
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
                return .failed
            }
            // A server that stalls the handshake is closed at the deadline.
            let limit = channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil as EventLoopPromise<Void>?) }
            established = (try? await done.futureResult.get()) ?? false
            limit.cancel()
            channel.close(promise: nil as EventLoopPromise<Void>?)
        } catch {
            // The connection failed, or the refused handshake closed it.
            established = false
        }
        if established { return .established }
        let captured = chain.withLock { $0 }
        return captured.isEmpty ? .failed : .refused(captured)
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

/// Completes `done` with `true` when the handshake completes, and with
/// `false` when the connection fails, closes or leaves the pipeline first
/// (a connection attempt that never became active says nothing else).
private final class HandshakeWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let done: EventLoopPromise<Bool>

    init(on eventLoop: any EventLoop) {
        done = eventLoop.makePromise()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { done.succeed(true) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.succeed(false)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.succeed(false)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        done.succeed(false)
    }
}
