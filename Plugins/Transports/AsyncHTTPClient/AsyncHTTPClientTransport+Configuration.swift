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
        /// The most bytes of a streamed upload (`RequestTask.uploadStream`)
        /// that wait, joined into one write, while the write before is on
        /// its way; past it the producer waits. An upload holds at most about
        /// twice this plus one of its chunks: 1 MiB by default, so about
        /// 2 MiB an upload. A server with many uploads at once lowers it,
        /// for less speed: on a 256 MB upload of 64 KiB chunks
        /// (`courier-bench --only upload`), 256 KiB ran at 0.65–0.73 of
        /// AsyncHTTPClient's own body stream, 512 KiB at 0.74 and 1 MiB at
        /// 0.86–1.10. A value of 0 or less joins nothing past one chunk.
        public var uploadJoinLimit: Int

        /// The join limit the transport has unless given another: 1 MiB.
        public static let defaultUploadJoinLimit = 1 << 20

        /// Creates a configuration.
        /// - Parameters:
        ///   - serverTrust: Which HTTPS servers are trusted.
        ///   - tlsConfiguration: The TLS settings the trust is built on.
        ///   - uploadJoinLimit: The most bytes of a streamed upload that
        ///     wait, joined, before its producer waits (see
        ///     ``uploadJoinLimit``).
        public init(serverTrust: ServerTrust = .system, tlsConfiguration: TLSConfiguration? = nil,
                    uploadJoinLimit: Int = Configuration.defaultUploadJoinLimit) {
            self.serverTrust = serverTrust
            self.tlsConfiguration = tlsConfiguration
            self.uploadJoinLimit = max(0, uploadJoinLimit)
        }
    }
}
