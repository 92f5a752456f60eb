import Foundation

/// How a streamed call reads its body (see ``Provider/stream(_:streamOptions:options:)``).
public struct StreamOptions: Sendable {
    /// The most body bytes the stream delivers in all, or `nil` for the
    /// target's ``TargetType/maximumResponseSize`` (no limit when that is
    /// `nil` too: a stream is read chunk by chunk, and never held whole).
    /// Past it the stream ends with ``NetworkError/responseTooLarge(_:)``.
    public var maximumBytes: Int64?

    /// Creates options.
    /// - Parameter maximumBytes: The most bytes the stream delivers in all.
    public init(maximumBytes: Int64? = nil) {
        self.maximumBytes = maximumBytes
    }
}
