import Foundation

/// The life of one response as a transport receives it: an enum for the
/// body and one for handing the answer to the awaiting caller, whose
/// transitions return what to do. ``ResponseExchange`` runs them under its
/// lock and acts outside it. Generic over the caller and the writer, so the
/// transitions are tested without a client or a task. The head itself stays
/// with the transport, which makes the response from it.
///
/// ```
/// body:     waitingForHead ──head, collected──▶ collecting(parts) ──end──▶ ended
///                 │   │                                                   ▲
///                 │   └──────head, streamed──▶ streaming(writer) ──end────┤
///                 └──end (no head: the failure, or a bad response)────────┘
/// delivery: waiting(caller?) ──deliver──▶ delivered
///                 └──deliver, nobody asked yet──▶ ready(answer) ──ask──▶ delivered
/// ```
struct ResponseExchangeStateMachine<Caller, Writer> {
    enum Body {
        case waitingForHead
        /// The transfer stage keeps the body in memory: its parts, joined
        /// once at the end (a buffer grown by appending copies itself as it
        /// doubles).
        case collecting(parts: [Data])
        /// The caller has the head; the body goes to it through the writer.
        case streaming(Writer)
        /// The exchange ended, and whoever waited was told or will be.
        case ended
    }

    typealias Answer = ResponseExchangeAnswer

    enum Delivery {
        case waiting(Caller?)
        /// Answered before anyone asked: kept for the caller.
        case ready(Answer)
        case delivered
    }

    private(set) var body: Body = .waitingForHead
    private(set) var delivery: Delivery = .waiting(nil)
    /// Where a streamed body goes; `nil` when it is collected whole.
    let writer: Writer?

    init(streamingTo writer: Writer?) {
        self.writer = writer
    }

    // MARK: - The caller

    /// The caller asks for the answer: it is ready, or the caller waits.
    mutating func ask(_ caller: Caller) -> Answer? {
        switch delivery {
        case .ready(let answer):
            delivery = .delivered
            return answer
        case .waiting(nil):
            delivery = .waiting(caller)
            return nil
        case .waiting(.some), .delivered:
            // A second caller would wait forever, or take the first one's place.
            preconditionFailure("a ResponseExchange's response() is asked for once")
        }
    }

    /// The answer is known: returns the caller to resume with it, or keeps
    /// it for a caller still to come. Only the first answer counts.
    private mutating func deliver(_ answer: Answer) -> Caller? {
        switch delivery {
        case .waiting(let caller?):
            delivery = .delivered
            return caller
        case .waiting(nil):
            delivery = .ready(answer)
            return nil
        case .ready, .delivered:
            return nil
        }
    }

    // MARK: - The transport's events

    /// The head arrived. Returns the caller to resume now, for a streamed
    /// body, or `nil` (a collected body is answered at the end; a second
    /// head, or one after the end, is ignored).
    mutating func receivedHead() -> Caller? {
        guard case .waitingForHead = body else { return nil }
        guard let writer else {
            body = .collecting(parts: [])
            return nil
        }
        body = .streaming(writer)
        return deliver(.streamed)
    }

    enum PartAction {
        /// Kept with the collected body (or let go with it, past its limit).
        case collected
        /// Nobody takes it here: no head yet, the exchange ended, or the
        /// body is streamed (its parts go to the stream, which opens at the
        /// head, not through this state).
        case drop
    }

    /// A part of a collected body arrived. `keep` is whether the transfer
    /// lets the body keep it: `false` past the limit, when the collected
    /// parts are let go at once (the call fails with the limit, not with them).
    mutating func received(part: Data, keep: Bool) -> PartAction {
        switch body {
        case .collecting(var parts):
            body = .ended  // the enum lets go of the parts, so appending copies nothing
            if keep { parts.append(part) } else { parts = [] }
            body = .collecting(parts: parts)
            return .collected
        case .streaming, .waitingForHead, .ended:
            return .drop
        }
    }

    /// Whether the head arrived for a streamed body that has not ended: its
    /// stream takes the parts.
    var isStreaming: Bool {
        if case .streaming = body { return true }
        return false
    }

    enum EndAction {
        /// End the streamed body: cleanly, or with the failure.
        case finish(Writer, failure: (any Error)?)
        /// Resume the caller with this answer.
        case answer(Caller, Answer)
        /// Nothing to do now: the answer waits for its caller, or the
        /// exchange had ended already.
        case none
    }

    /// The exchange ends, cleanly or with `failure`. Returns what to do, and
    /// whether this was the first end (later ones change nothing).
    mutating func end(failure: (any Error)?) -> (action: EndAction, first: Bool) {
        let previous = body
        body = .ended
        let answer: Answer
        switch previous {
        case .streaming(let writer):
            return (.finish(writer, failure: failure), true)
        case .collecting(let parts):
            answer = failure.map { .partial(parts: parts, failure: $0) } ?? .whole(parts: parts)
        case .waitingForHead:
            answer = .failure(failure ?? URLError(.badServerResponse))
        case .ended:
            return (.none, false)
        }
        return (deliver(answer).map { .answer($0, answer) } ?? .none, true)
    }
}

/// What the caller of a ``ResponseExchange`` is answered with; the head is
/// the transport's.
enum ResponseExchangeAnswer: Sendable {
    /// The head arrived; the body is streamed through the writer.
    case streamed
    /// The whole body.
    case whole(parts: [Data])
    /// The body that arrived before `failure` broke it off.
    case partial(parts: [Data], failure: any Error)
    /// No head: the failure.
    case failure(any Error)
}

extension ResponseExchangeStateMachine: Sendable where Caller: Sendable, Writer: Sendable {}
extension ResponseExchangeStateMachine.Body: Sendable where Caller: Sendable, Writer: Sendable {}
extension ResponseExchangeStateMachine.Delivery: Sendable where Caller: Sendable, Writer: Sendable {}
