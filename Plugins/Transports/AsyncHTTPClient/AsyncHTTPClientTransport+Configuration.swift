import Courier
import Foundation
import NIOSSL

extension AsyncHTTPClientTransport {
    /// How an ``AsyncHTTPClientTransport`` decodes bodies and which HTTPS
    /// servers it trusts.
    ///
    /// Redirects, time-outs and size limits are the provider's
    /// (`TransferConfiguration`), the same on every transport.
    ///
    /// ```swift
    /// let transport = AsyncHTTPClientTransport(configuration: .init(decompressesResponses: true))
    /// ```
    public struct Configuration: Sendable {
        /// Whether the client decompresses `gzip` and `deflate` bodies itself.
        ///
        /// `false` (the default) hands bodies over as the server sent them, with
        /// their `Content-Encoding`, so `CourierGzip` decodes them under its own
        /// size limit. When `true`, bodies arrive decoded, and the provider's
        /// size limit counts the decoded bytes. An owned client is configured
        /// from this; for a client you pass in, set it to match that client's
        /// `decompression`.
        public var decompressesResponses: Bool
        /// The most bytes the owned client decompresses for one response
        /// (64 MiB by default); past it the transfer fails with
        /// `NetworkError.responseTooLarge`. The client inflates a compressed
        /// chunk at once, so a bomb (1 GB of zeros in 1 MB) must be stopped
        /// inside the client, before the provider's own limit sees the bytes.
        public var maximumDecompressedSize: Int
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
        ///   - decompressesResponses: Whether the client decodes compressed bodies.
        ///   - maximumDecompressedSize: The most bytes decompressed for one response.
        ///   - serverTrust: Which HTTPS servers are trusted.
        ///   - tlsConfiguration: The TLS settings the trust is built on.
        public init(decompressesResponses: Bool = false, maximumDecompressedSize: Int = 64 << 20,
                    serverTrust: ServerTrust = .system, tlsConfiguration: TLSConfiguration? = nil) {
            self.decompressesResponses = decompressesResponses
            self.maximumDecompressedSize = maximumDecompressedSize
            self.serverTrust = serverTrust
            self.tlsConfiguration = tlsConfiguration
        }
    }
}
