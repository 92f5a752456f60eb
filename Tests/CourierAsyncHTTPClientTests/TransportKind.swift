import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import Testing

/// The transports the conformance suite runs against: the two over real
/// sockets, and an in-memory one for the tests that need no connection.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient
    case inMemory

    /// The transports that open real connections.
    static let networked: [TransportKind] = [.urlSession, .asyncHTTPClient]

    /// Whether the system's CA bundle holds the test root: set by
    /// `Tests/with-test-root-trusted`, which CI runs the HTTPS tests under.
    static let systemTrustsTestRoot = ProcessInfo.processInfo.environment["COURIER_SYSTEM_TRUSTS_TEST_ROOT"] == "1"

    /// The transports that accept a ``ServerTrust`` of their own (extra roots,
    /// pins): FoundationNetworking on Linux has no hook for one.
    #if canImport(Security)
    static let acceptingCustomTrust: [TransportKind] = [.urlSession, .asyncHTTPClient]
    #else
    static let acceptingCustomTrust: [TransportKind] = [.asyncHTTPClient]
    #endif

    /// The transports that can trust the test root, and so talk HTTPS to the
    /// loopback server: on Linux, `URLSessionTransport` only when the
    /// system's bundle holds the root.
    static let trustingTestRoot: [TransportKind] = systemTrustsTestRoot
        ? [.urlSession, .asyncHTTPClient] : acceptingCustomTrust

    /// The trust that makes this transport trust the test root: the root as
    /// an extra one, or the system's where it holds the root and this
    /// transport accepts no other.
    var testRootTrust: ServerTrust {
        Self.acceptingCustomTrust.contains(self) ? ServerTrust.system.trusting(rootCertificate: TestCertificates.rootDER) : .system
    }

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh transport of this kind, shutting down what it
    /// owns afterwards, whatever `body` does. `server` is what an in-memory
    /// transport answers from; `decodesCompressed` opts `URLSessionTransport`
    /// in to compressed answers (the other transports always decode them).
    func withTransport<Result: Sendable>(
        server: LoopbackServer? = nil,
        serverTrust: ServerTrust = .system,
        decodesCompressed: Bool = false,
        _ body: (any Transport) async throws -> Result
    ) async throws -> Result {
        switch self {
        case .urlSession:
            // Ephemeral: its own cookie jar, so no cookie another test's server
            // set for 127.0.0.1 rides along (cookies are not scoped by port).
            return try await body(URLSessionTransport(sessionConfiguration: .ephemeral, serverTrust: serverTrust,
                                                      decodesCompressedResponses: decodesCompressed))
        case .inMemory:
            guard let server else {
                Issue.record("an in-memory transport answers from a loopback server; pass one")
                throw CancellationError()
            }
            return try await body(InMemoryTransport(server: server))
        case .asyncHTTPClient:
            return try await withStarted({
                AsyncHTTPClientTransport(configuration: .init(serverTrust: serverTrust))
            }, shutdown: { try await $0.shutdown() }, { try await body($0) })
        }
    }

    /// Runs `body` with a provider on a fresh transport of this kind and a loopback server.
    func withProvider<Result: Sendable>(
        tls: LoopbackTLS? = nil,
        serverTrust: ServerTrust = .system,
        transfer: TransferConfiguration = TransferConfiguration(),
        plugins: [any Plugin] = [],
        decodesCompressed: Bool = false,
        _ body: (Provider<TestTarget>, LoopbackServer) async throws -> Result
    ) async throws -> Result {
        try await withServer(tls: tls) { server in
            try await withTransport(server: server, serverTrust: serverTrust, decodesCompressed: decodesCompressed) { transport in
                try await body(Provider<TestTarget>(transport: transport, plugins: plugins, transfer: transfer), server)
            }
        }
    }

    /// Runs `body` with a provider on a fresh transport of this kind and a
    /// misbehaving server.
    func withFaultyProvider<Result: Sendable>(
        transfer: TransferConfiguration = TransferConfiguration(),
        decodesCompressed: Bool = false,
        _ body: (Provider<TestTarget>, FaultyServer) async throws -> Result
    ) async throws -> Result {
        try await withFaultyServer { server in
            try await withTransport(decodesCompressed: decodesCompressed) { transport in
                try await body(Provider<TestTarget>(transport: transport, transfer: transfer), server)
            }
        }
    }
}
