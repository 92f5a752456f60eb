import Foundation

extension Gzip {
    /// Why compressing or decompressing failed.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The input is not valid compressed data; zlib's reason is attached.
        case corrupt(String)
        /// The input ended before its compressed stream did, after `consumed`
        /// compressed bytes.
        case truncated(consumed: Int)
        /// The output grew past `limit` bytes.
        case sizeLimitExceeded(limit: Int)
        /// `count` bytes follow the end of the compressed stream.
        case trailingData(count: Int)
        /// The stream was used after ``GzipCompressor/finish()`` or
        /// ``GzipDecompressor/finish()``.
        case alreadyFinished
        /// zlib itself failed (out of memory, a version mismatch).
        case zlibFailure(code: Int, message: String)

        /// What went wrong, in a sentence that says what to do about it.
        public var description: String {
            switch self {
            case .corrupt(let reason):
                "the compressed data is corrupt (zlib: \(reason)); it is not gzip or deflate data, or it was damaged in transit"
            case .truncated(let consumed):
                "the compressed data ends early, after \(consumed) bytes, before the end of its stream; the transfer was probably cut short"
            case .sizeLimitExceeded(let limit):
                "the data inflates to more than \(limit) bytes, the decompression limit; it may be a decompression bomb. "
                    + "Raise the limit only for a source you trust"
            case .trailingData(let count):
                "\(count) unexpected bytes follow the end of the compressed stream"
            case .alreadyFinished:
                "the stream was used after finish(); create a new one for new data"
            case .zlibFailure(let code, let message):
                "zlib failed with code \(code) (\(message))"
            }
        }
    }
}
