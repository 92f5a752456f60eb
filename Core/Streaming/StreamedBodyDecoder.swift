import Foundation

/// Decodes a streamed body as it arrives: what a plugin registers with
/// ``RequestContext/decodeStream(with:)`` to undo a `Content-Encoding` (the
/// gzip plugin's decoder is one).
///
/// The body calls it from one reader at a time, in order: ``decode(_:)`` for
/// each chunk from the transport, then ``finish()`` once, when the transport's
/// body has ended. A throw ends the stream with that error and closes the
/// connection. Bound what one chunk may turn into: a decompression bomb is a
/// few kilobytes that stand for gigabytes.
///
/// ```swift
/// final class Reversing: StreamedBodyDecoder {
///     func decode(_ chunk: Data) throws(NetworkError) -> Data { Data(chunk.reversed()) }
///     func finish() throws(NetworkError) -> Data { Data() }
/// }
/// ```
public protocol StreamedBodyDecoder: AnyObject, Sendable {
    /// The decoded bytes `chunk` completes; empty when it completes none yet.
    /// - Parameter chunk: The next bytes from the transport (or from the
    ///   decoder registered before this one).
    /// - Returns: The bytes to hand on.
    /// - Throws: ``NetworkError`` when the bytes cannot be decoded or decode
    ///   past a limit.
    func decode(_ chunk: Data) throws(NetworkError) -> Data

    /// The bytes still held back, at the end of the body.
    /// - Returns: The last decoded bytes, often none.
    /// - Throws: ``NetworkError`` when the body ended before its encoding did
    ///   (a stream cut short).
    func finish() throws(NetworkError) -> Data
}
