import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response whose body is read as it arrives: the head (status, header
/// fields, URL) at once, the body as an async sequence of byte chunks.
///
/// ```swift
/// let stream = try await provider.stream(.export)
/// for try await chunk in stream.body {
///     try handle.write(contentsOf: chunk)
/// }
/// ```
///
/// Read the body once, through ``body`` or one of the views (``lines``,
/// ``serverSentEvents``, ``jsonLines(of:decoder:maximumLength:)``,
/// ``jsonTextSequence(of:decoder:maximumLength:)``). Leaving the loop early, cancelling the
/// reading task or dropping the response closes the connection at once. The
/// idle time-out applies between chunks and the deadline to the whole call.
public struct StreamedResponse: Sendable {
    /// The response as the plugins saw it: status, header fields, URL and the
    /// request as sent, with an empty body (the body is ``body``).
    public let head: Response
    /// The body, chunk by chunk as it arrives.
    public let body: ResponseByteStream

    init(head: Response, body: StreamedBody) {
        self.head = head
        self.body = ResponseByteStream(body: body)
    }

    /// The HTTP status code.
    public var statusCode: Int { head.statusCode }

    /// The URL the response came from, after any redirects.
    public var url: URL? { head.response?.url }

    /// The value of a response header field, matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        head.value(forHTTPHeaderField: field)
    }

    /// The body as lines of text (UTF-8, LF, CRLF or CR line endings, no line
    /// longer than `maximumLength` bytes).
    ///
    /// - Parameter maximumLength: The longest line accepted; a longer one
    ///   ends the stream with ``NetworkError/responseTooLarge(_:)``
    ///   (``ResponseTooLarge/Limit/element``). 1 MiB by default.
    public func lines(maximumLength: Int = 1 << 20) -> ResponseLines {
        ResponseLines(body: body, maximumLength: maximumLength)
    }

    /// The body as lines of text, none longer than 1 MiB.
    public var lines: ResponseLines { lines() }

    /// The body as server-sent events (`text/event-stream`), each event's
    /// data at most `maximumEventSize` bytes.
    ///
    /// ```swift
    /// for try await event in try await provider.stream(.events).serverSentEvents {
    ///     print(event.event, event.data)
    /// }
    /// ```
    /// - Parameters:
    ///   - maximumEventSize: The largest event data accepted (and the
    ///     longest line); past it the stream ends with
    ///     ``NetworkError/responseTooLarge(_:)``. 1 MiB by default.
    ///   - maximumTimeBetweenEvents: The longest wait for the next event, in
    ///     seconds, or `nil` (the default) for no limit. Comments and fields
    ///     of an event not yet ended do not count: a server that sends only
    ///     those ends the stream with ``NetworkError/timedOut(_:)``
    ///     (``TransferTimeout/betweenEvents(_:)``) when its next bytes arrive
    ///     past the limit. A server that sends nothing at all meets the
    ///     target's idle time-out first.
    public func serverSentEvents(maximumEventSize: Int = 1 << 20,
                                 maximumTimeBetweenEvents: TimeInterval? = nil) -> ServerSentEvents {
        ServerSentEvents(body: body, maximumEventSize: maximumEventSize, maximumTimeBetweenEvents: maximumTimeBetweenEvents)
    }

    /// The body as server-sent events, none larger than 1 MiB.
    public var serverSentEvents: ServerSentEvents { serverSentEvents() }

    /// The body as JSON Lines (one JSON text per line; blank lines skipped),
    /// each decoded to `type`.
    ///
    /// ```swift
    /// for try await row in try await provider.stream(.export).jsonLines(of: Row.self) {
    ///     total += row.amount
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type of each line.
    ///   - decoder: The decoder to use.
    ///   - maximumLength: The longest line accepted, 1 MiB by default.
    /// - Returns: The decoded values, in order. A line that does not decode
    ///   ends the stream with ``NetworkError/mappingFailed(_:_:)`` whose error
    ///   is a ``StreamElementFailure`` naming the line's index (from 0).
    public func jsonLines<Value: Decodable & Sendable>(
        of type: Value.Type, decoder: JSONDecoder = JSONDecoder(), maximumLength: Int = 1 << 20
    ) -> JSONSequence<Value> {
        JSONSequence(head: head, body: body, framing: .lines, decoder: decoder, maximumLength: maximumLength)
    }

    /// The body as a JSON text sequence (RFC 7464, `application/json-seq`:
    /// each text after an RS byte), each decoded to `type`.
    ///
    /// - Parameters:
    ///   - type: The type of each text.
    ///   - decoder: The decoder to use.
    ///   - maximumLength: The longest text accepted, 1 MiB by default.
    /// - Returns: The decoded values, in order. A text that does not decode,
    ///   or the last one cut short (without its closing line feed), ends the
    ///   stream with ``NetworkError/mappingFailed(_:_:)`` whose error is a
    ///   ``StreamElementFailure`` naming its index (from 0).
    public func jsonTextSequence<Value: Decodable & Sendable>(
        of type: Value.Type, decoder: JSONDecoder = JSONDecoder(), maximumLength: Int = 1 << 20
    ) -> JSONSequence<Value> {
        JSONSequence(head: head, body: body, framing: .recordSeparator, decoder: decoder, maximumLength: maximumLength)
    }

    /// Reads the whole body into memory, up to `limit` bytes.
    /// - Throws: ``NetworkError/responseTooLarge(_:)`` past `limit`, or the
    ///   failure that ended the stream.
    public func collect(upTo limit: Int) async throws(NetworkError) -> Data {
        var data = Data()
        for try await chunk in body {
            guard data.count + chunk.count <= limit else {
                throw .responseTooLarge(ResponseTooLarge(limit: .memory, bytes: Int64(limit)))
            }
            data.append(chunk)
        }
        return data
    }
}

/// The body of a ``StreamedResponse``: chunks of bytes in the order they
/// arrive, read once.
///
/// The first iterator to read owns the body; dropping it before the end
/// closes the connection. Another iterator, made before or after, fails at
/// once with ``NetworkError/transport(_:)`` while the owner may still read
/// (two tasks reading one body is a mistake that would lose chunks), ends
/// at once after it, and leaves the body to the owner when dropped.
public struct ResponseByteStream: AsyncSequence, Sendable {
    /// What the sequence delivers.
    public typealias Element = Data
    /// What ends the sequence with an error.
    public typealias Failure = NetworkError

    let body: StreamedBody

    /// Makes the iterator that reads the sequence (once).

    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: Reader(body: body))
    }

    /// Reads the chunks; dropping it before the end closes the connection
    /// (when it owns the body: see ``ResponseByteStream``).
    public struct Iterator: AsyncIteratorProtocol {
        /// What the sequence delivers.
        public typealias Element = Data
        /// What ends the sequence with an error.
        public typealias Failure = NetworkError

        let reader: Reader

        /// The next chunk, or `nil` at the end.
        /// - Throws: ``NetworkError`` when the body broke off, timed out,
        ///   outgrew its limit or the task was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Data? {
            try await reader.body.next(by: ObjectIdentifier(reader))
        }

        /// The next chunk, or `nil` at the end.
        /// - Throws: ``NetworkError`` as ``next(isolation:)`` does.
        public mutating func next() async throws(NetworkError) -> Data? {
            try await reader.body.next(by: ObjectIdentifier(reader))
        }

        /// The next chunk for a view that parses the body: at the end, the
        /// plugins hear of it only once the view calls
        /// `StreamedBody.reachedTheEnd()`, after its last element.
        nonisolated(nonsending) mutating func nextHoldingTheEnd() async throws(NetworkError) -> Data? {
            try await reader.body.next(by: ObjectIdentifier(reader), holdingTheEnd: true)
        }
    }

    /// Stops the body when the iterator that reads it goes away.
    final class Reader: Sendable {
        let body: StreamedBody

        init(body: StreamedBody) {
            self.body = body
        }

        deinit {
            body.drop(ObjectIdentifier(self))
        }
    }
}

/// Why one element of a streamed body could not be read: the error of
/// ``NetworkError/mappingFailed(_:_:)`` from ``StreamedResponse/jsonLines(of:decoder:maximumLength:)``
/// and ``StreamedResponse/jsonTextSequence(of:decoder:maximumLength:)``.
public struct StreamElementFailure: Error, Sendable, CustomStringConvertible {
    /// The element's index in the stream, from 0 (blank lines not counted).
    public let index: Int
    /// What was wrong with it.
    public let reason: String

    public var description: String {
        "element \(index) of the stream could not be read: \(reason)"
    }
}
