import Courier

extension GzipPlugin {
    /// What the plugin compresses and how much it is willing to inflate.
    public struct Configuration: Sendable {
        /// Request bodies smaller than this many bytes are sent as they are:
        /// compressing them saves little and costs a round of CPU.
        public var compressionThreshold: Int
        /// How hard to compress request bodies.
        public var compressionLevel: Gzip.Level
        /// Whether bodies of targets that are not ``GzipRequestCompressible``
        /// are compressed too. Off: most servers refuse compressed requests.
        public var compressesEveryTarget: Bool
        /// Whether responses the transport left encoded are decompressed.
        public var decompressesResponses: Bool
        /// The most bytes a decompressed response may have; more is an error,
        /// not an out-of-memory crash.
        public var maximumDecompressedSize: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - compressionThreshold: The smallest body, in bytes, worth compressing.
        ///   - compressionLevel: How hard to compress.
        ///   - compressesEveryTarget: Whether to compress targets that did not opt in.
        ///   - decompressesResponses: Whether to decode encoded responses.
        ///   - maximumDecompressedSize: The decompressed-size limit, in bytes.
        public init(
            compressionThreshold: Int = 1024,
            compressionLevel: Gzip.Level = .default,
            compressesEveryTarget: Bool = false,
            decompressesResponses: Bool = true,
            maximumDecompressedSize: Int = 64 * 1024 * 1024
        ) {
            self.compressionThreshold = compressionThreshold
            self.compressionLevel = compressionLevel
            self.compressesEveryTarget = compressesEveryTarget
            self.decompressesResponses = decompressesResponses
            self.maximumDecompressedSize = maximumDecompressedSize
        }
    }

    /// A per-call override of whether the request body is compressed: `true`
    /// or `false` wins over the target and the configuration.
    ///
    /// ```swift
    /// let options = RequestOptions().setting(GzipPlugin.CompressRequestBody.self, to: true)
    /// try await provider.request(.upload(report), options: options)
    /// ```
    public enum CompressRequestBody: RequestOptionKey {
        /// `nil`: no override for this call.
        public static let defaultValue: Bool? = nil
    }

    /// Why the plugin failed; it reaches callers wrapped in
    /// `NetworkError/plugin(_:_:)`.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The request body could not be compressed.
        case compressionFailed(Gzip.Error)
        /// A response body in `encoding` from `url` could not be decompressed.
        case decompressionFailed(encoding: String, url: String, Gzip.Error)

        /// What failed and why, without the URL's query (it may carry secrets).
        public var description: String {
            switch self {
            case .compressionFailed(let error):
                "the request body could not be gzip-compressed: \(error)"
            case .decompressionFailed(let encoding, let url, let error):
                "the \(encoding)-encoded response from \(url) could not be decompressed: \(error)"
            }
        }
    }
}
