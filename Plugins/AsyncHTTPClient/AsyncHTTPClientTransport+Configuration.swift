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
        /// The most bytes the owned client decompresses for one response
        /// (64 MiB by default); past it the transfer fails with
        /// `NetworkError.responseTooLarge`. The client inflates a compressed
        /// chunk at once, so a bomb (1 GB of zeros in 1 MB) must be stopped
        /// inside the client, before the provider's own limit sees the bytes.
        public var maximumDecompressedSize: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - decompressesResponses: Whether the client decodes compressed bodies.
        ///   - maximumDecompressedSize: The most bytes decompressed for one response.
        public init(decompressesResponses: Bool = false, maximumDecompressedSize: Int = 64 << 20) {
            self.decompressesResponses = decompressesResponses
            self.maximumDecompressedSize = maximumDecompressedSize
        }
    }
}
