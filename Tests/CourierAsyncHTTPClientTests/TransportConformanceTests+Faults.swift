import Courier
import CourierTestSupport
import Foundation
import Testing

/// A server that misbehaves: every fault ends in the `NetworkError` that names
/// it, within a bounded time and with bounded memory, on every transport.
extension TransportConformanceTests {
    /// Streamed: a progress handler makes the transfer stage read the body
    /// chunk by chunk; without one, a transport may collect it whole.
    @Test(arguments: TransportKind.networked, [false, true])
    func aResetInTheMiddleOfTheBodyIsConnectionLost(kind: TransportKind, streamed: Bool) async throws {
        let error = try await faultOutcome(of: .resetMidBody, on: kind, progress: progress(streamed: streamed))
        guard case .connectionLost = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: TransportKind.networked, [false, true])
    func aBodyShorterThanItsContentLengthIsConnectionLost(kind: TransportKind, streamed: Bool) async throws {
        let error = try await faultOutcome(of: .closeEarly, on: kind, progress: progress(streamed: streamed))
        guard case .connectionLost(let failure as IncompleteBody) = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
        // The 1,000 bytes that came are counted, whichever way the transport reported the close.
        #expect(failure.expected == 100_000)
        #expect(failure.received == 1_000)
    }

    @Test(arguments: TransportKind.networked, [false, true])
    func aStallAfterTheHeadEndsAtTheIdleTimeOut(kind: TransportKind, streamed: Bool) async throws {
        let error = try await faultOutcome(of: .stallAfterHead, on: kind, timeout: 0.5, progress: progress(streamed: streamed))
        guard case .timedOut(let reason as TransferTimeout) = error, reason == .idle(0.5) else {
            Issue.record("expected an idle time-out of 0.5 s, got \(String(describing: error))")
            return
        }
    }

    /// With decoding off, a bomb is just its compressed bytes, for `CourierGzip`
    /// to decode under its own limit (AsyncHTTPClient; libcurl decodes always).
    @Test func withDecodingOffABombArrivesCompressed() async throws {
        try await TransportKind.asyncHTTPClient.withFaultyProvider(transfer: TransferConfiguration(decodesContent: false)) { provider, server in
            let response = try await withDeadline(120) {
                try await provider.request(TestTarget(server.url(.gzipBomb), path: ""))
            }
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
            #expect(response.data.count < 4 << 20)
            #expect(response.data.prefix(2) == Data([0x1F, 0x8B]))
        }
    }

    @Test(arguments: TransportKind.networked)
    func anOversizedHeadIsAFailureNotAHang(kind: TransportKind) async throws {
        let error = try await faultOutcome(of: .oversizedHead, on: kind)
        switch error {
        case .invalidResponse?, .connectionLost?, .transport?: break
        default: Issue.record("expected a failure to read the response, got \(String(describing: error))")
        }
    }

    @Test(arguments: TransportKind.networked)
    func aMalformedStatusLineIsAnInvalidResponse(kind: TransportKind) async throws {
        let error = try await faultOutcome(of: .malformedStatusLine, on: kind)
        guard case .invalidResponse = error else {
            Issue.record("expected invalidResponse, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: TransportKind.networked)
    func aTimeOutSetByTheRequestClosureCounts(kind: TransportKind) async throws {
        try await withFaultyServer { server in
            try await kind.withTransport { transport in
                let provider = Provider<TestTarget>(requestClosure: { endpoint in
                    var request = try endpoint.urlRequest()
                    request.timeoutInterval = 0.5
                    return request
                }, transport: transport)
                let error = try await withDeadline() {
                    await CourierAsyncHTTPClientTests.failure(of: TestTarget(server.url(.stallAfterHead), path: ""), on: provider)
                }
                guard case .timedOut(let reason as TransferTimeout) = error, reason == .idle(0.5) else {
                    Issue.record("expected an idle time-out of 0.5 s, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    // MARK: - Helpers

    func faultOutcome(
        of fault: FaultyServer.Fault,
        on kind: TransportKind,
        transfer: TransferConfiguration = TransferConfiguration(),
        timeout: TimeInterval? = nil,
        progress: ProgressHandler? = nil,
        decodesCompressed: Bool = false
    ) async throws -> NetworkError? {
        try await kind.withFaultyProvider(transfer: transfer, decodesCompressed: decodesCompressed) { provider, server in
            try await withDeadline(120, "the \(fault) fault") {
                await CourierAsyncHTTPClientTests.failure(of: TestTarget(server.url(fault), path: "", timeout: timeout),
                                                          on: provider, progress: progress)
            }
        }
    }
}
