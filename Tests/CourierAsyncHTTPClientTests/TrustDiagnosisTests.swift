import AsyncHTTPClient
import Courier
@testable import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// Telling a self-signed certificate from one by an unknown authority takes a
/// second handshake. A connection cut short (refused, reset, closed before
/// the handshake) says nothing about the certificate: the diagnosis tries
/// once more, and if it still cannot tell, says so instead of guessing.
@Suite struct TrustDiagnosisTests {
    @Test func aSelfSignedCertificateIsNamedSo() async throws {
        let (reason, connections) = try await diagnosis(of: .selfSigned, droppingConnections: [])
        #expect(reason == .selfSigned)
        #expect(connections == 2)
    }

    @Test func aSecondHandshakeCutShortIsTriedOnceMore() async throws {
        let (reason, connections) = try await diagnosis(of: .selfSigned, droppingConnections: [2])
        #expect(reason == .selfSigned)
        #expect(connections == 3)
    }

    @Test func aSecondHandshakeThatCannotFinishIsNotTakenForAnUnknownAuthority() async throws {
        let (reason, connections) = try await diagnosis(of: .selfSigned, droppingConnections: [2, 3])
        guard case .handshakeFailed(let detail) = reason else {
            Issue.record("expected handshakeFailed, got \(String(describing: reason))")
            return
        }
        #expect(detail.contains("signed itself or its authority is unknown"))
        #expect(detail.contains("could not finish"))
        #expect(connections == 3)
    }

    @Test func aCertificateFromAnUnknownAuthorityIsNamedSo() async throws {
        // The server sends the authority's root too: no second handshake.
        let (reason, connections) = try await diagnosis(of: .otherRoot, droppingConnections: [])
        #expect(reason == .untrustedRoot)
        #expect(connections == 1)
    }

    @Test func aLoneCertificateFromAnUnknownAuthorityIsNamedSo() async throws {
        // Refused even when trusted as its own root: not self-signed.
        let (reason, connections) = try await diagnosis(of: .otherRoot, sendingIssuer: false, droppingConnections: [])
        #expect(reason == .untrustedRoot)
        #expect(connections == 2)
    }

    @Test func aHandshakeWithNoAnswerEndsAtTheTimeLimitAndSaysSo() async throws {
        // The second connection is accepted and never answered: the diagnosis
        // closes it when its handshakes have had their time (2 s here).
        let (reason, connections) = try await diagnosis(of: .selfSigned, droppingConnections: [], stalling: [2],
                                                        within: .seconds(2))
        guard case .handshakeFailed(let detail) = reason else {
            Issue.record("expected handshakeFailed, got \(String(describing: reason))")
            return
        }
        #expect(detail.contains("could not finish: no answer within the diagnosis's 2 s"))
        #expect(connections == 2)
    }

    @Test func aServerThatWillNotShowItsCertificateAgainIsNotGuessedAt() async throws {
        let (reason, connections) = try await diagnosis(of: .selfSigned, droppingConnections: [1])
        guard case .handshakeFailed(let detail) = reason else {
            Issue.record("expected handshakeFailed, got \(String(describing: reason))")
            return
        }
        #expect(detail.contains("could not be read again"))
        #expect(connections == 1)
    }

    /// Through the transport, a call whose deadline (3 s) passes while the
    /// diagnosis waits on a server that never answers its second handshake
    /// ends at its deadline, not at the diagnosis's time limit (10 s).
    @Test func theCallsDeadlineEndsTheWaitForADiagnosis() async throws {
        try await withTLSListener(of: .selfSigned, stalling: [3]) { port, _, accepted in
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { transport in
                let provider = Provider<TestTarget>(transport: transport, transfer: TransferConfiguration(deadline: 3))
                let target = TestTarget(try #require(URL(string: "https://127.0.0.1:\(port)")))
                let error = await failure(of: target, on: provider)
                // Had the call waited out the diagnosis (10 s), it would end
                // with the diagnosis's serverTrustFailed; the deadline's
                // time-out says the wait was cut short.
                // (Whether the diagnosis had begun by then depends on how busy
                // the machine is: a full run can hold it back past 3 s.)
                guard case .timedOut = error else {
                    Issue.record("expected timedOut, got \(String(describing: error)) after \(accepted()) connections")
                    return
                }
            }
        }
    }

    /// The server was just refused: a client certificate (who the user is)
    /// is never shown to it again.
    @Test func aDiagnosisNeverPresentsAClientCertificate() async throws {
        let presented = Locked(0)
        let identity = try LoopbackTLS().serverConfiguration()
        var client = TLSConfiguration.makeClientConfiguration()
        client.certificateChain = identity.certificateChain
        client.privateKey = identity.privateKey
        let connections = try await withTLSListener(of: .selfSigned, recordingClientCertificates: presented) { port, group, accepted in
            _ = await TrustDiagnosis().reason(host: "127.0.0.1", port: port, configuration: client, pinned: false, on: group,
                                            within: .seconds(120))
            return accepted()
        }
        #expect(connections >= 2, "the second handshake, which trusts the server, is the one that would show it")
        #expect(presented.withLock { $0 } == 0)
    }

    /// The diagnosis connects on its own: never for a client passed in that
    /// goes through a proxy (it would connect around it).
    @Test func aClientThatGoesThroughAProxyIsSeenAsSuch() async throws {
        var proxied = HTTPClient.Configuration()
        proxied.proxy = .server(host: "127.0.0.1", port: 3128)
        for (configuration, expected) in [(HTTPClient.Configuration(), false), (proxied, true)] {
            let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
            #expect(AsyncHTTPClientTransport.usesProxy(client) == expected)
            try await client.shutdown()
        }
    }

    /// End to end through a CONNECT proxy: the call's handshake, made in the
    /// proxy's tunnel, is refused, and no diagnosis follows around the proxy
    /// (its DNS, TCP and SNI would leave from this machine directly). The TLS
    /// server sees only connections the proxy opened, and an error from a
    /// refused handshake says why the certificate was not named.
    @Test func aCallThroughAProxyIsNotDiagnosedAroundIt() async throws {
        let proxy = try await ConnectProxy.start()
        do {
            try await withTLSListener(of: .selfSigned) { port, _, accepted in
                var configuration = HTTPClient.Configuration()
                configuration.proxy = .server(host: "127.0.0.1", port: proxy.port)
                configuration.redirectConfiguration = .disallow
                // AsyncHTTPClient takes a refused handshake in a proxy's tunnel
                // for a failed connection and tries again until its connect
                // time-out (10 s, about 15 tunnels here), then reports the
                // handshake's error. On a loaded machine its time-out can pass
                // before it has recorded a failed handshake; the call then
                // waits for a connection until its own time-out. Either way no
                // diagnosis may follow around the proxy.
                let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
                let provider = Provider<TestTarget>(transport: AsyncHTTPClientTransport(client: client))
                let target = TestTarget(try #require(URL(string: "https://127.0.0.1:\(port)")), timeout: 60)
                let error = await failure(of: target, on: provider)
                try await client.shutdown()
                switch error {
                case .serverTrustFailed(let failure)?:
                    guard case .handshakeFailed(let detail) = failure.reason else {
                        Issue.record("expected no diagnosis, got \(failure.reason)")
                        return
                    }
                    #expect(detail.contains("not diagnosed further, since the client connects through a proxy"))
                case .timedOut?:
                    break
                default:
                    Issue.record("expected serverTrustFailed(handshakeFailed) or timedOut, got \(String(describing: error))")
                }
                #expect(!proxy.tunnelTargets.isEmpty)
                #expect(proxy.tunnelTargets.allSatisfy { $0 == "127.0.0.1:\(port)" })
                #expect(accepted() == proxy.tunnelTargets.count, "every connection the server accepted came through the proxy")
            }
        } catch {
            await proxy.shutdown()
            throw error
        }
        await proxy.shutdown()
    }

    /// The diagnosis of a TLS server presenting `certificate` (see
    /// ``withTLSListener(of:sendingIssuer:droppingConnections:stalling:recordingClientCertificates:_:)``),
    /// and how many connections it accepted. The diagnosis's handshakes have
    /// `limit` in all: by default far more than a loaded machine's needs, so
    /// only a stalled connection reaches it.
    private func diagnosis(of certificate: LoopbackTLS.Certificate, sendingIssuer: Bool = true,
                           droppingConnections dropped: Set<Int>, stalling stalled: Set<Int> = [],
                           within limit: TimeAmount = .seconds(120)) async throws -> (ServerTrustFailure.Reason, connections: Int) {
        try await withTLSListener(of: certificate, sendingIssuer: sendingIssuer, droppingConnections: dropped, stalling: stalled) {
            port, group, accepted in
            let reason = await TrustDiagnosis().reason(
                host: "127.0.0.1", port: port, configuration: .makeClientConfiguration(), pinned: false, on: group,
                within: limit)
            return (reason, accepted())
        }
    }

    /// Runs `body` with a TLS server on 127.0.0.1 presenting `certificate`
    /// (and after it its issuer, if `sendingIssuer`) that closes its
    /// connections numbered in `dropped` (from 1) as soon as they are
    /// accepted and never answers those in `stalled`; with
    /// `recordingClientCertificates`, it asks clients for a certificate and
    /// counts those it is shown. `body` gets the port, the server's event
    /// loop group and how many connections were accepted so far.
    private func withTLSListener<T: Sendable>(
        of certificate: LoopbackTLS.Certificate, sendingIssuer: Bool = true,
        droppingConnections dropped: Set<Int> = [], stalling stalled: Set<Int> = [],
        recordingClientCertificates presented: Locked<Int>? = nil,
        _ body: (Int, MultiThreadedEventLoopGroup, @Sendable () -> Int) async throws -> T
    ) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tls = LoopbackTLS(certificate: certificate, sendsIssuer: sendingIssuer)
        var configuration = try tls.serverConfiguration()
        if presented != nil { configuration.certificateVerification = .noHostnameVerification }
        let context = try NIOSSLContext(configuration: configuration)
        let accepted = Locked(0)
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                let number = accepted.withLock { count in
                    count += 1
                    return count
                }
                guard !dropped.contains(number) else { return channel.close() }
                guard !stalled.contains(number) else { return channel.eventLoop.makeSucceededVoidFuture() }
                return channel.eventLoop.makeCompletedFuture {
                    let handler = presented.map { presented in
                        NIOSSLServerHandler(context: context) { certificates, promise in
                            presented.withLock { $0 += certificates.count }
                            promise.succeed(.certificateVerified)
                        }
                    } ?? NIOSSLServerHandler(context: context)
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(port, group, { accepted.withLock { $0 } }))
        } catch {
            result = .failure(error)
        }
        try await listener.close()
        try await group.shutdownGracefully()
        return try result.get()
    }
}
