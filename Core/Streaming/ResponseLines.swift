import Foundation

/// The lines of a streamed body, as text (see ``StreamedResponse/lines``).
public struct ResponseLines: AsyncSequence, Sendable {
    /// What the sequence delivers.
    public typealias Element = String
    /// What ends the sequence with an error.
    public typealias Failure = NetworkError

    let body: ResponseByteStream
    let maximumLength: Int

    /// Makes the iterator that reads the sequence (once).

    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(maximumLength: maximumLength))
    }

    /// Reads the lines; dropping it before the end closes the connection
    /// (when it owns the body: see ``ResponseByteStream``).
    public struct Iterator: AsyncIteratorProtocol {
        /// What the sequence delivers.
        public typealias Element = String
        /// What ends the sequence with an error.
        public typealias Failure = NetworkError

        var chunks: ResponseByteStream.Iterator
        var splitter: LineSplitter
        var ended = false

        /// The next line, without its line ending, or `nil` at the end.
        /// - Throws: ``NetworkError``: the body's failure, or
        ///   ``NetworkError/responseTooLarge(_:)`` for a line over its limit.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> String? {
            while true {
                if let line = splitter.next() {
                    chunks.reader.body.countElement()
                    return String(decoding: line, as: UTF8.self)
                }
                if let overflow = splitter.overflow {
                    ended = true
                    throw chunks.reader.body.refuse(overflow)
                }
                guard !ended else { return nil }
                guard let chunk = try await chunks.nextHoldingTheEnd() else {
                    ended = true
                    // The last line, without its line ending, is counted
                    // before the plugins hear of the end.
                    let last = splitter.finish()
                    if last != nil { chunks.reader.body.countElement() }
                    chunks.reader.body.reachedTheEnd()
                    return last.map { String(decoding: $0, as: UTF8.self) }
                }
                splitter.feed(chunk)
            }
        }

        /// The next line, or `nil` at the end.
        /// - Throws: ``NetworkError`` as ``next(isolation:)`` does.
        public mutating func next() async throws(NetworkError) -> String? {
            try await next(isolation: nil)
        }
    }
}

extension StreamedBody {
    /// Stops the body for an element that does not decode, and says which.
    func refuse(index: Int, of head: Response, because reason: String) -> NetworkError {
        let failure = NetworkError.mappingFailed(head, StreamElementFailure(index: index, reason: reason))
        stop(failing: failure)
        return failure
    }

    /// Stops the body for an element over its view's limit, and says so.
    func refuse(_ element: LineTooLong) -> NetworkError {
        let failure = NetworkError.responseTooLarge(ResponseTooLarge(limit: .element, bytes: Int64(element.limit)))
        stop(failing: failure)
        return failure
    }
}

/// The server-sent events of a streamed body (see
/// ``StreamedResponse/serverSentEvents``).
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// What the sequence delivers.
    public typealias Element = ServerSentEvent
    /// What ends the sequence with an error.
    public typealias Failure = NetworkError

    let body: ResponseByteStream
    let maximumEventSize: Int
    let maximumTimeBetweenEvents: TimeInterval?

    /// Makes the iterator that reads the sequence (once).

    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), splitter: LineSplitter(maximumLength: maximumEventSize),
                 parser: ServerSentEventParser(maximumDataLength: maximumEventSize),
                 maximumTimeBetweenEvents: maximumTimeBetweenEvents)
    }

    /// Reads the events; dropping it before the end closes the connection
    /// (when it owns the body: see ``ResponseByteStream``).
    public struct Iterator: AsyncIteratorProtocol {
        /// What the sequence delivers.
        public typealias Element = ServerSentEvent
        /// What ends the sequence with an error.
        public typealias Failure = NetworkError

        var chunks: ResponseByteStream.Iterator
        var splitter: LineSplitter
        var parser: ServerSentEventParser
        let maximumTimeBetweenEvents: TimeInterval?
        var ended = false
        /// When the last event was handed out (or the iterator made).
        var lastEvent = ContinuousClock.now

        /// The ID of the last event handed out, for a reconnection's
        /// `Last-Event-ID`.
        var lastEventID: String? { parser.lastID }
        /// The reconnection time the stream last set, in milliseconds.
        var reconnectionTime: Int? { parser.reconnectionTime }

        /// The next event, or `nil` at the end (an event left without its
        /// closing blank line is discarded, as the specification says).
        /// - Throws: ``NetworkError``: the body's failure, or
        ///   ``NetworkError/responseTooLarge(_:)`` for an event over its limit.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> ServerSentEvent? {
            while true {
                while let line = splitter.next() {
                    let event: ServerSentEvent?
                    do {
                        event = try parser.parse(line: line)
                    } catch {
                        ended = true
                        throw chunks.reader.body.refuse(error)
                    }
                    if let event {
                        chunks.reader.body.countElement()
                        // The clock is read only when a limit needs it.
                        if maximumTimeBetweenEvents != nil { lastEvent = .now }
                        return event
                    }
                }
                if let overflow = splitter.overflow {
                    ended = true
                    throw chunks.reader.body.refuse(overflow)
                }
                guard !ended else { return nil }
                guard let chunk = try await chunks.nextHoldingTheEnd() else {
                    // An event left without its closing blank line is
                    // discarded: nothing more to count.
                    ended = true
                    chunks.reader.body.reachedTheEnd()
                    return nil
                }
                if let limit = maximumTimeBetweenEvents, lastEvent.duration(to: .now) > .seconds(limit) {
                    ended = true
                    let failure = NetworkError.timedOut(TransferTimeout.betweenEvents(limit))
                    chunks.reader.body.stop(failing: failure)
                    throw failure
                }
                splitter.feed(chunk)
            }
        }

        /// The next event, or `nil` at the end.
        /// - Throws: ``NetworkError`` as ``next(isolation:)`` does.
        public mutating func next() async throws(NetworkError) -> ServerSentEvent? {
            try await next(isolation: nil)
        }
    }
}

/// The JSON values of a streamed body, one per line or per RS-separated
/// record (see ``StreamedResponse/jsonLines(of:decoder:maximumLength:)``).
public struct JSONSequence<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// What the sequence delivers.
    public typealias Element = Value
    /// What ends the sequence with an error.
    public typealias Failure = NetworkError

    enum Framing: Sendable {
        /// JSON Lines: one text per line.
        case lines
        /// RFC 7464: each text after an RS (0x1E) and closed by a line feed.
        case recordSeparator
    }

    let head: Response
    let body: ResponseByteStream
    let framing: Framing
    let decoder: JSONDecoder
    let maximumLength: Int

    /// Makes the iterator that reads the sequence (once).

    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self, chunks: body.makeAsyncIterator(),
                 splitter: LineSplitter(maximumLength: maximumLength,
                                        boundary: framing == .lines ? .lineEnding : .separator(0x1E)))
    }

    /// Reads the values; dropping it before the end closes the connection
    /// (when it owns the body: see ``ResponseByteStream``).
    public struct Iterator: AsyncIteratorProtocol {
        /// What the sequence delivers.
        public typealias Element = Value
        /// What ends the sequence with an error.
        public typealias Failure = NetworkError

        let sequence: JSONSequence
        var chunks: ResponseByteStream.Iterator
        var splitter: LineSplitter
        var ended = false
        /// The index of the next element.
        var index = 0

        /// The next value, or `nil` at the end.
        /// - Throws: ``NetworkError``: the body's failure,
        ///   ``NetworkError/responseTooLarge(_:)`` for an element over its
        ///   limit, or ``NetworkError/mappingFailed(_:_:)`` with a
        ///   ``StreamElementFailure`` for one that does not decode.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Value? {
            while true {
                let element: [UInt8]
                var isFinal = false
                if let next = splitter.next() {
                    element = next
                } else if let overflow = splitter.overflow {
                    ended = true
                    throw chunks.reader.body.refuse(overflow)
                } else if ended {
                    // A last element that was blank: the view is done.
                    chunks.reader.body.reachedTheEnd()
                    return nil
                } else if let chunk = try await chunks.nextHoldingTheEnd() {
                    splitter.feed(chunk)
                    continue
                } else {
                    ended = true
                    guard let last = splitter.finish() else {
                        chunks.reader.body.reachedTheEnd()
                        return nil
                    }
                    (element, isFinal) = (last, true)
                }
                // The last element, without its line ending, is counted (or
                // fails the stream) before the plugins hear of the end.
                let value = try decode(element, isFinal: isFinal)
                if isFinal { chunks.reader.body.reachedTheEnd() }
                if let value { return value }
            }
        }

        /// One element's value, or `nil` for a blank one.
        private mutating func decode(_ element: [UInt8], isFinal: Bool) throws(NetworkError) -> Value? {
            let body = chunks.reader.body
            switch Text(element, framing: sequence.framing, isFinal: isFinal) {
            case .blank:
                return nil
            case .json(let bytes):
                defer { index += 1 }
                let data = Data(bytes)
                let depth = JSONNesting.defaultMaximumDepth
                guard !JSONNesting.exceeds(depth, in: data) else {
                    throw body.refuse(index: index, of: sequence.head,
                                      because: "it nests arrays and objects deeper than \(depth) levels")
                }
                do {
                    let value = try sequence.decoder.decode(Value.self, from: data)
                    body.countElement()
                    return value
                } catch {
                    throw body.refuse(index: index, of: sequence.head, because: String(describing: error))
                }
            case .cutShort:
                throw body.refuse(index: index, of: sequence.head,
                                  because: "the last text was cut short: it does not end with a line feed")
            }
        }

        /// The next value, or `nil` at the end.
        /// - Throws: ``NetworkError`` as ``next(isolation:)`` does.
        public mutating func next() async throws(NetworkError) -> Value? {
            try await next(isolation: nil)
        }

    }

    /// One element as read: blank (skipped), a JSON text without the white
    /// space around it, or an RFC 7464 text cut short.
    private enum Text {
        case blank
        case json(ArraySlice<UInt8>)
        case cutShort

        init(_ element: [UInt8], framing: Framing, isFinal: Bool) {
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            guard let first = element.firstIndex(where: { !isSpace($0) }),
                  let last = element.lastIndex(where: { !isSpace($0) }) else {
                self = .blank
                return
            }
            if framing == .recordSeparator, isFinal, element.last != 0x0A {
                self = .cutShort
            } else {
                self = .json(element[first...last])
            }
        }
    }
}
