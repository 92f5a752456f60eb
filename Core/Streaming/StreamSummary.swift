import Foundation

/// How a streamed call's body ended, for plugins that report on it (see
/// ``RequestContext/onStreamEnd(_:)``).
public struct StreamSummary: Sendable, Equatable {
    /// How the stream ended.
    public enum Outcome: Sendable, Equatable {
        /// Every byte arrived.
        case finished
        /// It broke off, timed out or outgrew its limit.
        case failed(NetworkError)
        /// The reader stopped early (it left its loop or its task was
        /// cancelled), or never read it; the connection was closed.
        case cancelled

        /// Two outcomes are equal when they are the same case; two failures
        /// when their errors are the same case of ``NetworkError``.
        public static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            switch (lhs, rhs) {
            case (.finished, .finished), (.cancelled, .cancelled): true
            case (.failed(let left), .failed(let right)): left.errorCode == right.errorCode
            default: false
            }
        }
    }

    /// The body bytes the reader received.
    public let bytes: Int64
    /// The lines, events or values a view (``StreamedResponse/lines``,
    /// ``StreamedResponse/serverSentEvents``, ``StreamedResponse/jsonLines(of:decoder:maximumLength:)``)
    /// parsed; 0 when the bytes were read as they are.
    public let elements: Int
    /// Seconds from the head to the end.
    public let duration: TimeInterval
    /// How it ended.
    public let outcome: Outcome
}
