import Foundation

/// The state of one `URLSession` task as `URLSessionTransport` follows it,
/// from its delegate queue: an enum whose transitions return what to do with
/// the awaiting caller and the body's writer. Generic over both, so the
/// transitions are tested without a session.
///
/// ```
/// waitingForHead ──head, collected──▶ collecting ──completed──▶ done
///        │                                                    ▲
///        ├──head, streamed──▶ streaming ──completed───────────┤
///        ├──head refused──────────────────────────────────────┤
///        └──completed (no head)───────────────────────────────┘
/// ```
struct URLSessionExchangeStateMachine<Continuation, Writer> {
    enum State {
        /// Sent; the caller waits for the head.
        case waitingForHead(Continuation?)
        /// The head arrived; the body is collected whole before the caller
        /// gets either.
        case collecting(Continuation?, head: HTTPURLResponse, body: Data)
        /// The caller has the head; the body goes to it through the writer.
        case streaming(Writer)
        /// The task completed, and whoever waited was told.
        case done
    }

    private(set) var state: State = .waitingForHead(nil)
    /// Where a streamed body goes; `nil` when the body is collected whole
    /// (see `TransportRequest.collectsBody`).
    let writer: Writer?
    /// A 401 or 407 challenge was refused so the task ends with its response.
    private(set) var challenged = false
    /// Why the session refused the server's certificate, when it did.
    private(set) var trustFailure: ServerTrustFailure?

    init(streamingTo writer: Writer?) {
        self.writer = writer
    }

    /// The caller starts waiting.
    mutating func start(_ continuation: Continuation) {
        if case .waitingForHead = state { state = .waitingForHead(continuation) }
    }

    /// The head arrived. Returns the caller to resume with the head and the
    /// streamed body (a streamed exchange), or `nil`.
    mutating func received(head: HTTPURLResponse) -> Continuation? {
        guard case .waitingForHead(let continuation) = state else { return nil }
        guard let writer else {
            state = .collecting(continuation, head: head, body: Data())
            return nil
        }
        state = .streaming(writer)
        return continuation
    }

    /// The head was refused before its body was read: the task is being
    /// cancelled. Returns the caller to fail now; what the task reports from
    /// here on is dropped.
    mutating func refused() -> Continuation? {
        guard case .waitingForHead(let continuation) = state else { return nil }
        state = .done
        return continuation
    }

    enum DataAction {
        /// Collected; nothing to do.
        case collected
        /// Hand the bytes to this writer.
        case yield(Writer)
        /// Nobody takes them (the task ended, or there is no head yet).
        case drop
    }

    /// Body bytes arrived; `keep` is whether the transfer stage lets the body
    /// keep them (it counts them against the limit first).
    mutating func received(_ data: Data, keep: Bool) -> DataAction {
        switch state {
        case .collecting(let continuation, let head, var body):
            if keep {
                state = .done  // the enum lets go of the body, so appending copies nothing
                body.append(data)
                state = .collecting(continuation, head: head, body: body)
            } else {
                // Past the limit, or stopped: let what was collected go.
                state = .collecting(continuation, head: head, body: Data())
            }
            return .collected
        case .streaming(let writer):
            return keep ? .yield(writer) : .drop
        case .waitingForHead, .done:
            return .drop
        }
    }

    mutating func refusedChallenge() {
        challenged = true
    }

    mutating func refusedTrust(_ failure: ServerTrustFailure) {
        trustFailure = failure
    }

    enum CompletionAction {
        /// End the streamed body: cleanly, or with the failure.
        case finish(Writer, failure: (any Error)?)
        /// Resume the caller with the head and the whole body.
        case respond(Continuation, head: HTTPURLResponse, body: Data)
        /// Resume the caller with the head and the body that arrived before
        /// the failure.
        case respondPartially(Continuation, head: HTTPURLResponse, body: Data, failure: any Error)
        /// Resume the caller with the failure.
        case fail(Continuation, any Error)
        /// Nobody waits any more.
        case none
    }

    /// The task completed with `error` (already translated); `taskResponse`
    /// gives the task's response, asked for only when no head was reported.
    mutating func completed(error: (any Error)?, taskResponse: () -> HTTPURLResponse?) -> CompletionAction {
        let failure: (any Error)? = trustFailure.map { NetworkError.serverTrustFailed($0) } ?? (challenged ? nil : error)
        let previous = state
        state = .done
        switch previous {
        case .streaming(let writer):
            return .finish(writer, failure: failure)
        case .collecting(let continuation?, let head, let body):
            if let failure { return .respondPartially(continuation, head: head, body: body, failure: failure) }
            return .respond(continuation, head: head, body: body)
        case .waitingForHead(let continuation?):
            switch (taskResponse(), failure) {
            case (let head?, nil): return .respond(continuation, head: head, body: Data())
            case (let head?, let failure?): return .respondPartially(continuation, head: head, body: Data(), failure: failure)
            case (nil, let failure?): return .fail(continuation, failure)
            case (nil, nil): return .fail(continuation, URLError(.badServerResponse))
            }
        case .collecting(nil, _, _), .waitingForHead(nil), .done:
            return .none
        }
    }
}
