import Courier
import Foundation
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Which HTTPS servers an ``AsyncHTTPClientTransport`` trusts, and the TLS
    /// settings it builds that trust on.
    ///
    /// Redirects, time-outs, size limits and content decoding are the
    /// provider's (`TransferConfiguration`), the same on every transport.
    ///
    /// ```swift
    /// let transport = AsyncHTTPClientTransport(configuration: .init(serverTrust: .pinning("api.example.com", to: .certificate(rootDER))))
    /// ```
    public struct Configuration: Sendable {
        /// Which HTTPS servers are trusted: `ServerTrust.system` by default.
        /// Extra roots apply to every host; a pinned host trusts only its
        /// pinned certificates as roots. A public-key pin fails the requests
        /// to its host at once with `NetworkError.serverTrustFailed`, since
        /// AsyncHTTPClient shows no certificate during the handshake. With a
        /// client you pass in, pins hold only if that client follows no
        /// redirects itself (as the transport requires anyway).
        public var serverTrust: ServerTrust
        /// The TLS settings the trust is built on (a client certificate, the
        /// lowest TLS version, cipher suites); `nil` for SwiftNIO SSL's
        /// defaults. Give the one of a client you pass in, so requests that
        /// `serverTrust` applies to keep its settings.
        public var tlsConfiguration: TLSConfiguration?

        /// Creates a configuration.
        /// - Parameters:
        ///   - serverTrust: Which HTTPS servers are trusted.
        ///   - tlsConfiguration: The TLS settings the trust is built on.
        public init(serverTrust: ServerTrust = .system, tlsConfiguration: TLSConfiguration? = nil) {
            self.serverTrust = serverTrust
            self.tlsConfiguration = tlsConfiguration
        }
    }
}
