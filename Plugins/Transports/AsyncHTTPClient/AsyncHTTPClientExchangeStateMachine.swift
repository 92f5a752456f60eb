import Courier
import Foundation

/// The state of one request through AsyncHTTPClient's delegate API, as the
/// transport's exchange follows it: an enum for the body and one for handing
/// the response to the awaiting caller, whose transitions return what to do.
/// Generic over the caller, the head, a body part and the writer, so the
/// transitions are tested without a client.
///
/// ```
/// body:     waitingForHead ──head──▶ collecting(parts) ──end──▶ ended
///                     │                                          ▲
///                     └─────head, streamed──▶ streaming(writer) ─┘
/// delivery: waiting(caller?) ──deliver──▶ delivered (a result no caller
///           waited for is kept until one asks)
/// ```
struct AsyncHTTPClientExchangeStateMachine<Caller: Sendable, Head: Sendable, Part: Sendable, Writer: Sendable>: Sendable {
    enum Body {
        case waitingForHead
        /// The transfer stage keeps the body in memory: its parts, joined
        /// once at the end (a buffer grown by appending copies itself as it
        /// doubles).
        case collecting(Head, parts: [Part])
        case streaming(Head, Writer)
        /// The request finished or failed, and gave its event loop slot back.
        case ended
    }

    enum Delivery<Outcome: Sendable>: Sendable {
        case waiting(Caller?)
        /// Delivered before anyone asked: kept for the caller.
        case ready(Outcome)
        case delivered
    }

    private(set) var body: Body = .waitingForHead
    /// Whether the body is collected whole (see `TransportRequest.collectsBody`).
    let collects: Bool

    init(collects: Bool) {
        self.collects = collects
    }

    // MARK: - The body

    /// The head arrived; returns the writer made for a streamed body (the
    /// caller then gets the head at once), `nil` for a collected one.
    mutating func received(head: Head, writer: () -> Writer) -> Writer? {
        guard case .waitingForHead = body else { return nil }
        if collects {
            body = .collecting(head, parts: [])
            return nil
        }
        let made = writer()
        body = .streaming(head, made)
        return made
    }

    enum PartAction {
        case collected
        /// Yield the part to this writer, with back-pressure.
        case yield(Writer)
        /// Nobody takes it.
        case drop
    }

    /// A part of the body arrived; `keep` is whether the transfer stage lets
    /// a collected body keep it (it counted it against the limit first).
    mutating func received(part: Part, keep: Bool) -> PartAction {
        switch body {
        case .streaming(_, let writer):
            return .yield(writer)
        case .collecting(let head, var parts):
            body = .ended  // the enum lets go of the parts, so appending copies nothing
            if keep { parts.append(part) } else { parts = [] }
            body = .collecting(head, parts: parts)
            return .collected
        case .waitingForHead, .ended:
            return .drop
        }
    }

    /// How the request ended, for the exchange to act on.
    enum Ending {
        /// End the streamed body.
        case streamed(Writer)
        /// The collected body: the head and its parts.
        case collected(Head, [Part])
        /// No head ever arrived.
        case headless
    }

    /// The request finished or failed. Returns how it ended, and whether this
    /// is the first end (then the event loop slot is given back).
    mutating func end() -> (ending: Ending, first: Bool) {
        let previous = body
        body = .ended
        switch previous {
        case .streaming(_, let writer): return (.streamed(writer), true)
        case .collecting(let head, let parts): return (.collected(head, parts), true)
        case .waitingForHead: return (.headless, true)
        case .ended: return (.headless, false)
        }
    }
}

extension AsyncHTTPClientExchangeStateMachine.Delivery {
    /// The caller asks for the outcome: it is ready, or the caller waits.
    mutating func ask(_ caller: Caller) -> Outcome? {
        switch self {
        case .ready(let outcome):
            return outcome
        case .waiting, .delivered:
            self = .waiting(caller)
            return nil
        }
    }

    /// The outcome is known: returns the caller to resume, or keeps it for a
    /// caller still to come; `nil` too when one was delivered already (the
    /// first wins).
    mutating func deliver(_ outcome: Outcome) -> Caller? {
        switch self {
        case .waiting(let caller?):
            self = .delivered
            return caller
        case .waiting(nil):
            self = .ready(outcome)
            return nil
        case .ready, .delivered:
            return nil
        }
    }
}
