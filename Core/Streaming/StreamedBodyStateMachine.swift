import Foundation

/// The life of a streamed call's body, as an enum whose transitions return
/// what ``StreamedBody`` must do: it runs them under its lock and acts
/// outside it (reads the transport's stream, stops it, tells the plugins).
/// Generic over the transport's stream, so the transitions are tested
/// without a transport.
///
/// ```
/// unread ──first read──▶ reading ──stream ends──▶ drained ──tail taken──▶ tailTaken
///   │  (a whole body: its one chunk, then drained)                             │
///   └──────────── stop, failure or the end ─────────────▶ ended ◀────────────────┘
/// ```
///
/// The body ends once: the first ``finish(_:elapsed:)`` gives the summary the
/// plugins hear, every later one nothing. The decoders' tail (what they held
/// back) is taken once, and only from a body that arrived whole.
struct StreamedBodyStateMachine<Stream: Sendable>: Sendable {
    enum Source: Sendable {
        case whole(Data)
        case stream(Stream)
    }

    enum Phase: Sendable {
        /// Nobody has started reading.
        case unread(Source)
        /// A reader is taking the transport's chunks.
        case reading(Stream)
        /// Every chunk was handed out; the decoders still hold their tail.
        case drained
        /// The decoders' tail was taken; the end is being reported.
        case tailTaken
        /// It ended, and the plugins were told how; reads get nothing.
        case ended
    }

    private(set) var phase: Phase
    /// The bytes the transport delivered so far.
    private(set) var received: Int64 = 0
    /// The lines, events or values a view parsed.
    private(set) var elements = 0
    /// The plugins' decoders, taken once, at the first chunk or the end.
    private var decoders: [any StreamedBodyDecoder]?

    init(_ source: Source) {
        phase = .unread(source)
    }

    // MARK: - Reading

    enum ReadAction {
        /// The body was whole: this is all of it (`nil` for an empty one).
        case deliver(Data?)
        /// Read the next chunk from the transport's stream, then report it
        /// with ``arrived(_:)`` or ``streamEnded()``.
        case read(Stream)
        /// It has ended; the read gets nothing.
        case end
    }

    mutating func read() -> ReadAction {
        switch phase {
        case .unread(.whole(let data)):
            phase = .drained
            received = Int64(data.count)
            return .deliver(data.isEmpty ? nil : data)
        case .unread(.stream(let stream)):
            phase = .reading(stream)
            return .read(stream)
        case .reading(let stream):
            return .read(stream)
        case .drained, .tailTaken, .ended:
            return .end
        }
    }

    /// A chunk of `count` bytes arrived; returns the bytes received so far,
    /// for the stream's limit.
    mutating func arrived(_ count: Int) -> Int64 {
        received += Int64(count)
        return received
    }

    /// The transport's stream ended without an error; returns the bytes
    /// received, to compare with what the head announced.
    mutating func streamEnded() -> Int64 {
        if case .reading = phase { phase = .drained }
        return received
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

    /// The stream to stop when the reader stops or the transfer is aborted:
    /// the transport's, when it is still open.
    var openStream: Stream? {
        switch phase {
        case .unread(.stream(let stream)), .reading(let stream): stream
        case .unread(.whole), .drained, .tailTaken, .ended: nil
        }
    }

    /// The stream to stop when the transfer is aborted before anyone read:
    /// once a reader has it, the reader's read fails instead.
    var unreadStream: Stream? {
        guard case .unread(.stream(let stream)) = phase else { return nil }
        return stream
    }

    /// Ends the body with `outcome`: the summary to tell the plugins the
    /// first time, `nil` after.
    mutating func finish(_ outcome: StreamSummary.Outcome, elapsed: TimeInterval) -> StreamSummary? {
        if case .ended = phase { return nil }
        phase = .ended
        return StreamSummary(bytes: received, elements: elements, duration: elapsed, outcome: outcome)
    }
}
