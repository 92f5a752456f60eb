import Courier
import Foundation

extension AsyncHTTPClientTransport {
    /// How an ``AsyncHTTPClientTransport`` follows redirects, decodes bodies
    /// and times out.
    ///
    /// ```swift
    /// let transport = AsyncHTTPClientTransport(configuration: .init(maximumRedirects: 3, timeout: 15))
    /// ```
    public struct Configuration: Sendable {
        /// Whether redirects are followed at all. When `false`, a 3xx response
        /// is returned as it is.
        public var followsRedirects: Bool
        /// How many redirects one request may follow before it fails.
        public var maximumRedirects: Int
        /// Whether the client decompresses `gzip` and `deflate` bodies itself.
        ///
        /// `false` (the default) hands bodies over as the server sent them, with
        /// their `Content-Encoding`, so `CourierGzip` decodes them. When `true`,
        /// bodies arrive decoded and without `Content-Encoding`. An owned client
        /// is configured from this; for a client you pass in, set it to match
        /// that client's `decompression`.
        public var decompressesResponses: Bool
        /// The idle time-out in seconds for targets whose `timeout` is `nil`:
        /// a request fails when nothing is sent or received for this long.
        public var timeout: TimeInterval

        /// Creates a configuration.
        /// - Parameters:
        ///   - followsRedirects: Whether redirects are followed.
        ///   - maximumRedirects: How many redirects one request may follow.
        ///   - decompressesResponses: Whether the client decodes compressed bodies.
        ///   - timeout: The default idle time-out in seconds.
        public init(
            followsRedirects: Bool = true,
            maximumRedirects: Int = 10,
            decompressesResponses: Bool = false,
            timeout: TimeInterval = 60
        ) {
            self.followsRedirects = followsRedirects
            self.maximumRedirects = maximumRedirects
            self.decompressesResponses = decompressesResponses
            self.timeout = timeout
        }
    }
}
