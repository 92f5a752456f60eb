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

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh transport of this kind, shutting down what it
    /// owns afterwards, whatever `body` does. `server` is what an in-memory
    /// transport answers from.
    func withTransport<Result: Sendable>(
        server: LoopbackServer? = nil,
        decompressesResponses: Bool = false,
        _ body: (any Transport) async throws -> Result
    ) async throws -> Result {
        switch self {
        case .urlSession:
            // Ephemeral: its own cookie jar, so no cookie another test's server
            // set for 127.0.0.1 rides along (cookies are not scoped by port).
            return try await body(URLSessionTransport(sessionConfiguration: .ephemeral))
        case .inMemory:
            guard let server else {
                Issue.record("an in-memory transport answers from a loopback server; pass one")
                throw CancellationError()
            }
            return try await body(InMemoryTransport(server: server))
        case .asyncHTTPClient:
            let transport = AsyncHTTPClientTransport(configuration: .init(decompressesResponses: decompressesResponses))
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

    /// Runs `body` with a provider on a fresh transport of this kind and a loopback server.
    func withProvider<Result: Sendable>(
        transfer: TransferConfiguration = TransferConfiguration(),
        plugins: [any Plugin] = [],
        _ body: (Provider<TestTarget>, LoopbackServer) async throws -> Result
    ) async throws -> Result {
        try await withServer { server in
            try await withTransport(server: server) { transport in
                try await body(Provider<TestTarget>(transport: transport, plugins: plugins, transfer: transfer), server)
            }
        }
    }

    /// Runs `body` with a provider on a fresh transport of this kind and a
    /// misbehaving server.
    func withFaultyProvider<Result: Sendable>(
        transfer: TransferConfiguration = TransferConfiguration(),
        decompressesResponses: Bool = false,
        _ body: (Provider<TestTarget>, FaultyServer) async throws -> Result
    ) async throws -> Result {
        try await withFaultyServer { server in
            try await withTransport(decompressesResponses: decompressesResponses) { transport in
                try await body(Provider<TestTarget>(transport: transport, transfer: transfer), server)
            }
        }
    }
}
