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

    /// The diagnosis of a TLS server presenting `certificate` (and after it
    /// its issuer, if `sendingIssuer`) that closes its connections numbered
    /// in `dropped` (from 1) as soon as they are accepted and never answers
    /// those in `stalled`, and how many connections it accepted. The
    /// diagnosis's handshakes have `limit` in all: by default far more than a
    /// loaded machine's needs, so only a stalled connection reaches it.
    private func diagnosis(of certificate: LoopbackTLS.Certificate, sendingIssuer: Bool = true,
                           droppingConnections dropped: Set<Int>, stalling stalled: Set<Int> = [],
                           within limit: TimeAmount = .seconds(120)) async throws -> (ServerTrustFailure.Reason, connections: Int) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let tls = LoopbackTLS(certificate: certificate, sendsIssuer: sendingIssuer)
        let context = try NIOSSLContext(configuration: tls.serverConfiguration())
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
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let reason = await TrustDiagnosis.reason(
            host: "127.0.0.1", port: port, configuration: .makeClientConfiguration(), pinned: false, on: group,
            within: limit)
        try await listener.close()
        try await group.shutdownGracefully()
        return (reason, accepted.withLock { $0 })
    }
}
