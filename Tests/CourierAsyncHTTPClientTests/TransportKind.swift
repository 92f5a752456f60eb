import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import Testing

/// The transports the conformance suite runs against.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh transport of this kind, shutting down what it
    /// owns afterwards, whatever `body` does.
    func withTransport<Result: Sendable>(
        _ body: (any Transport) async throws -> Result
    ) async throws -> Result {
        switch self {
        case .urlSession:
            // Ephemeral: its own cookie jar, so no cookie another test's server
            // set for 127.0.0.1 rides along (cookies are not scoped by port).
            let transport = URLSessionTransport(sessionConfiguration: .ephemeral)
            return try await body(transport)
        case .asyncHTTPClient:
            let transport = AsyncHTTPClientTransport()
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
        _ body: (Provider<TestTarget>, LoopbackServer) async throws -> Result
    ) async throws -> Result {
        try await withTransport { transport in
            try await withServer { server in
                try await body(Provider<TestTarget>(transport: transport, transfer: transfer), server)
            }
        }
    }
}
