import Courier
import Foundation

extension AsyncHTTPClientTransport {
    /// How an ``AsyncHTTPClientTransport`` decodes bodies.
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

        /// Creates a configuration.
        /// - Parameter decompressesResponses: Whether the client decodes compressed bodies.
        public init(decompressesResponses: Bool = false) {
            self.decompressesResponses = decompressesResponses
        }
    }
}
