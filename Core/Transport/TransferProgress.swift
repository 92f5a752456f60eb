import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How far an upload or a download has got.
public struct TransferProgress: Sendable, Equatable {
    /// Which way the bytes are going.
    public enum Direction: Sendable, Equatable {
        /// Bytes going to the server: the request's body.
        case upload
        /// Bytes coming from the server: the response's body.
        case download
    }

    /// Which way the bytes are going.
    public let direction: Direction
    /// Bytes transferred so far.
    public let completedBytes: Int64
    /// The total, when known (from `Content-Length` or the upload's size).
    public let totalBytes: Int64?

    /// Creates a progress report.
    /// - Parameters:
    ///   - direction: Which way the bytes are going.
    ///   - completedBytes: Bytes transferred so far.
    ///   - totalBytes: The total, when known.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, from 0 to 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    /// Whether every byte has been transferred.
    public var isFinished: Bool {
        guard let totalBytes else { return false }
        return completedBytes >= totalBytes
    }
}

/// Receives progress reports, in order, on an arbitrary thread.
public typealias ProgressHandler = @Sendable (TransferProgress) -> Void
