import Foundation

/// What ``StreamedBodyStateMachine`` needs of the reader it keeps: how many
/// bytes it has read, for the summary the plugins hear.
protocol CountingBodyReader: Sendable {
    var received: Int64 { get }
}

extension BodyReader: CountingBodyReader {}

/// The life of a streamed call's body, as an enum whose transitions return
/// what ``StreamedBody`` must do: it runs them under its lock and acts
/// outside it (reads through its ``BodyReader``, stops it, tells the
/// plugins). Generic over the reader, so the transitions are tested without
/// a transport.
///
/// ```
/// unread ──read──▶ inRead ──reader back──▶ betweenReads ──read──▶ inRead …
///                    └──reader back at the end──▶ drained ──tail taken──▶ tailTaken
///   (any phase) ──stop, failure or the end──▶ ended
/// ```
///
/// One reader: the first iterator to read owns the body. Another iterator's
/// read is refused while the owner may still read (dropping that iterator
/// leaves the body alone), and gets the end once the owner is done; and one
/// read at a time, so a copy of the owner's iterator reading while a read is
/// on its way is refused too. Two reads waiting on the transport's stream
/// together would leave one waiting for good.
///
/// The body ends once: the first ``finish(_:elapsed:)`` gives the summary the
/// plugins hear, every later one nothing. The decoders' tail (what they held
/// back) is taken once, and only from a body that arrived whole.
struct StreamedBodyStateMachine<Reader: CountingBodyReader>: Sendable {
    enum Phase: Sendable {
        /// Nobody has started reading.
        case unread(Reader)
        /// A read is on its way; the copy kept here is for stopping it.
        case inRead(Reader)
        /// Between two reads: the reader's copy as of its last read.
        case betweenReads(Reader)
        /// Every chunk was handed out; the decoders still hold their tail.
        case drained
        /// The decoders' tail was taken; the end is being reported.
        case tailTaken
        /// It ended, and the plugins were told how; reads get nothing.
        case ended
    }

    private(set) var phase: Phase
    /// The iterator that read first, which the body belongs to from then on.
    private(set) var owner: ObjectIdentifier?
    /// The bytes read so far.
    private(set) var received: Int64 = 0
    /// The lines, events or values a view parsed.
    private(set) var elements = 0
    /// The plugins' decoders, taken once, at the first chunk or the end.
    private var decoders: [any StreamedBodyDecoder]?

    init(_ reader: Reader) {
        phase = .unread(reader)
    }

    // MARK: - Reading

    enum ReadAction {
        /// Read the next chunk with this reader, then hand it back with
        /// ``readerReturned(_:atEnd:decoders:)``.
        case read(Reader)
        /// It has ended; the read gets nothing.
        case end
        /// Another iterator owns the body and may still read it, or a read
        /// is on its way: this one is refused, and the body goes on for the
        /// other.
        case busy
    }

    /// A read by the iterator `reader`: the first one to read owns the body,
    /// and another one's reads get nothing.
    mutating func read(by reader: ObjectIdentifier) -> ReadAction {
        if let owner, owner != reader {
            // Another iterator's read: nothing, once the owner is done with
            // the body; refused while the owner may still read it.
            switch phase {
            case .tailTaken, .ended: return .end
            case .unread, .inRead, .betweenReads, .drained: return .busy
            }
        }
        owner = reader
        switch phase {
        case .unread(let reader), .betweenReads(let reader):
            phase = .inRead(reader)
            return .read(reader)
        case .inRead:
            return .busy
        case .drained, .tailTaken, .ended:
            return .end
        }
    }

    /// The reader is back from a read, with what it counted; `atEnd` when it
    /// read the end of the body. A body stopped meanwhile stays ended.
    /// - Returns: The decoders for the chunk it read (none at the end), taken
    ///   in the same step, so a chunk costs one turn of the lock.
    @discardableResult
    mutating func readerReturned(_ reader: Reader, atEnd: Bool,
                                 decoders registered: () -> [any StreamedBodyDecoder]) -> [any StreamedBodyDecoder] {
        received = reader.received
        if case .inRead = phase { phase = atEnd ? .drained : .betweenReads(reader) }
        return atEnd ? [] : decoders(registered)
    }

    /// Counts one line, event or value a view parsed.
    mutating func countElement() {
        elements += 1
    }

    // MARK: - Decoding

    /// The decoders for the next chunk: `registered` the first time, the
    /// same ones after.
    mutating func decoders(_ registered: () -> [any StreamedBodyDecoder]) -> [any StreamedBodyDecoder] {
        if let decoders { return decoders }
        let taken = registered()
        decoders = taken
        return taken
    }

    /// The decoders whose tail is to be taken now: once, after every chunk
    /// arrived, never after the body was stopped or failed.
    mutating func takeTail(_ registered: () -> [any StreamedBodyDecoder]) -> [any StreamedBodyDecoder] {
        guard case .drained = phase else { return [] }
        phase = .tailTaken
        return decoders(registered)
    }

    // MARK: - Ending

    /// Whether dropping the iterator `reader` stops the body: it does unless
    /// another iterator owns it.
    func dropping(_ reader: ObjectIdentifier) -> Bool {
        owner.map { $0 == reader } ?? true
    }

    /// The reader to stop when the body is stopped: while the body is still
    /// being read.
    var openReader: Reader? {
        switch phase {
        case .unread(let reader), .inRead(let reader), .betweenReads(let reader): reader
        case .drained, .tailTaken, .ended: nil
        }
    }

    /// Whether the body has ended: stopping it then has nothing to stop (its
    /// transport finished, or its transfer was stopped when it failed).
    var hasEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// Ends the body with `outcome`: the summary to tell the plugins the
    /// first time, `nil` after.
    mutating func finish(_ outcome: StreamSummary.Outcome, elapsed: TimeInterval) -> StreamSummary? {
        if case .ended = phase { return nil }
        phase = .ended
        return StreamSummary(bytes: received, elements: elements, duration: elapsed, outcome: outcome)
    }
}
