import Foundation

/// One response as a transport receives it. The transport feeds it what its
/// client reports (the head, each part of the body, the end or a failure)
/// and returns ``response(_:)`` from ``Transport/send(_:)``; the exchange
/// does the rest the same way for every transport:
///
/// - tells the request's ``TransferControl`` of the head, and counts a body
///   kept in memory against its limit before keeping a part, so a body past
///   its limit is let go at once;
/// - answers once the head has arrived for a body the caller reads as it
///   arrives (``TransportRequest/collectsBody`` `false`), and once the body
///   has ended for one kept whole;
/// - hands a body that broke off after its head over with what arrived, so
///   the transfer stage sees how much was missing;
/// - takes only the first end, whichever comes first, and drops what
///   arrives after it.
///
/// ```swift
/// let exchange = ResponseExchange(for: request)
/// let head = Locked<(status: Int, fields: [String: String])?>(nil)
///
/// // In the client's callbacks:
/// head.withLock { $0 = (status, fields) }            // the head is kept first
/// exchange.receivedHead()
/// exchange.receivedBody(bytes) { readNextPart() }    // each part
/// exchange.end()                                     // or exchange.end(failure: error)
///
/// // In send(_:):
/// return try await exchange.response { body in
///     guard let kept = head.current else { throw URLError(.badServerResponse) }
///     return TransportResponse(statusCode: kept.status, url: request.url, headerFields: kept.fields, body: body)
/// }
/// ```
///
/// Every call is safe from any thread; copies of an exchange are the same
/// exchange.
public struct ResponseExchange: Sendable {
    private typealias Machine = ResponseExchangeStateMachine<UnsafeContinuation<ResponseExchangeAnswer, any Error>, ResponseBodyWriter>

    private let control: TransferControl
    /// A streamed exchange's body, made with the exchange (by the sending
    /// task). It opens when the head arrives, and from then on the client's
    /// parts go straight to it: the exchange's own state is not touched for
    /// every part, only for the head and the end.
    private let streamed: ResponseBodyStream?
    private let state: Locked<Machine>

    /// Creates the exchange for one attempt at `request`.
    /// - Parameters:
    ///   - request: The request, for its ``TransferControl`` and whether its
    ///     body is kept whole (``TransportRequest/collectsBody``).
    ///   - maximumUnreadBytes: For a client that cannot wait for the reader
    ///     of a streamed body: the most bytes left unread before the body
    ///     fails (see ``ResponseBody/makeStream(maximumUnreadBytes:)``).
    public init(for request: TransportRequest, maximumUnreadBytes: Int? = nil) {
        control = request.control
        let stream = request.collectsBody ? nil : ResponseBodyStream(maximumUnreadBytes: maximumUnreadBytes, opensAtHead: true,
                                                                      transfer: request.control)
        streamed = stream
        state = Locked(Machine(streamingTo: stream.map(ResponseBodyWriter.init(stream:))))
    }

    /// Waits for the response and makes it: once the head has arrived for a
    /// streamed body, once the body has ended for one kept whole. Call it
    /// once per exchange, from the task that sends the request; a second
    /// call is a programming error and stops the process.
    ///
    /// The continuation is not a checked one: the delivery state resumes it
    /// exactly once (the first answer wins; its transitions are tested), and
    /// a checked one costs every request an allocation.
    /// - Parameter makeResponse: Makes the response from the head the
    ///   transport kept and this body; runs in the awaiting task, not in the
    ///   client's callback.
    /// - Throws: What ended the exchange before a head arrived, as the
    ///   transport passed it to ``end(failure:first:)``; `URLError`
    ///   `badServerResponse` for an end with neither head nor failure; what
    ///   `makeResponse` throws.
    public func response(_ makeResponse: (ResponseBody) throws -> TransportResponse) async throws -> TransportResponse {
        let answer = try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<ResponseExchangeAnswer, any Error>) in
            if let ready = state.withLock({ $0.ask(continuation) }) { continuation.resume(returning: ready) }
        }
        switch answer {
        case .streamed:
            return try makeResponse(streamed.map { ResponseBody(storage: .stream($0)) } ?? .empty)
        case .whole(let parts):
            return try makeResponse(ResponseBody(Self.joined(parts)))
        case .partial(let parts, let failure):
            return try makeResponse(.partial(Self.joined(parts), failure: failure))
        case .failure(let failure):
            throw failure
        }
    }

    /// The head arrived: keep it where ``response(_:)``'s closure will find
    /// it first. A second head, or one after the end, is ignored.
    public func receivedHead() {
        control.didReceiveHead()
        let (caller, streams) = state.withLock { state in (state.receivedHead(), state.isStreaming) }
        // Opened before the caller hears of the head; not after the end.
        if streams { streamed?.open() }
        caller?.resume(returning: .streamed)
    }

    /// A part of the body arrived.
    ///
    /// A client that can wait for the reader passes `whenConsumed` and reads
    /// the next part only after it runs: at once for a body kept whole, and
    /// for a streamed one as ``ResponseBodyWriter/yield(_:whenConsumed:)``
    /// says. A part given without it comes from a client that cannot wait,
    /// and is counted against the transfer's limit as it arrives, whatever
    /// the body's reader does.
    /// - Returns: `false` when the part was refused: past the limit of a body
    ///   kept whole or counted as it arrives, past the unread bound of a
    ///   streamed body, before the head, after the end, or after the body's
    ///   reader stopped (the transfer's abort handler stops the client then
    ///   too). A client may stop decoding or reading then.
    @discardableResult
    public func receivedBody(_ part: Data, whenConsumed: (@Sendable () -> Void)? = nil) -> Bool {
        guard let streamed else {
            let kept = collect(part)
            whenConsumed?()
            return kept
        }
        // A client that cannot wait has its parts counted as they arrive.
        guard whenConsumed != nil || control.didReceive(byteCount: part.count) else { return false }
        return streamed.yield(part, whenConsumed: whenConsumed) != .refused
    }

    /// A part of the body arrived, from a client that can wait for the
    /// reader and whose way to wait costs something to make (a promise):
    /// `makeWaiter` is called only when the client must wait, and returns the
    /// callback that lets it read on.
    ///
    /// ```swift
    /// var consumed: EventLoopPromise<Void>?
    /// _ = exchange.receivedBody(part) {
    ///     let promise = eventLoop.makePromise(of: Void.self)
    ///     consumed = promise
    ///     return { promise.succeed() }
    /// }
    /// return consumed?.futureResult ?? eventLoop.makeSucceededVoidFuture()
    /// ```
    ///
    /// A client that hands over several parts in one go (the parts of one
    /// read of its socket) passes `wakesReader: false` for each and calls
    /// ``wakeReader()`` once after the last: the streamed body's reader is
    /// then woken once for them all, not once a part (each wake schedules
    /// its task on another thread).
    /// - Parameters:
    ///   - part: The bytes that arrived, as the client hands them over
    ///     (decoded, if it decodes).
    ///   - wakesReader: Whether a reader that waits for the body is woken
    ///     for the part now; with `false`, it sleeps on until
    ///     ``wakeReader()`` or the exchange's end, which the client must then
    ///     bring about.
    ///   - makeWaiter: As for ``ResponseBodyWriter/yield(_:wakesReader:waitingWith:)``:
    ///     called at most once, before this returns, under a lock.
    /// - Returns: `true` when the client may read on at once (a part of a
    ///   body kept whole, one the streamed body's reader can take now, or
    ///   one refused: before the head, after the end, or past the limit,
    ///   whose transfer is stopped through its ``TransferControl``); `false`
    ///   when it waits for the callback. Unlike ``receivedBody(_:whenConsumed:)``,
    ///   it does not say whether the part was refused.
    public func receivedBody(_ part: Data, wakesReader: Bool = true, waitingWith makeWaiter: () -> @Sendable () -> Void) -> Bool {
        guard let streamed else {
            collect(part)
            return true
        }
        return streamed.offer(part, defersWake: !wakesReader, waitingWith: { makeWaiter() }) != .held
    }

    /// Wakes the streamed body's reader if it waits while parts given with
    /// `wakesReader: false` are queued; it then reads them in order. Does
    /// nothing otherwise (no reader waits, nothing is queued, or the body is
    /// kept whole).
    public func wakeReader() {
        streamed?.wake()
    }

    /// Counts a part of a body kept in memory against the transfer's limit,
    /// then keeps it (or, past the limit, lets the parts kept so far go).
    /// - Returns: Whether it was kept.
    @discardableResult
    private func collect(_ part: Data) -> Bool {
        let keep = control.didReceive(byteCount: part.count)
        return state.withLock { $0.received(part: part, keep: keep) } == .collected && keep
    }

    /// The exchange ends: every byte arrived (`failure` `nil`), or the client
    /// failed. Only the first end counts.
    /// - Parameters:
    ///   - failure: Why the client failed, as it reports it: after the head it
    ///     ends the body (see ``ResponseBodyWriter/fail(_:)``), before it
    ///     ``response(_:)`` throws it as it is.
    ///   - first: Runs for the first end only, before the caller or the
    ///     body's reader is told: for a client that gives something back once
    ///     per request (a connection, a slot), so the caller's next request
    ///     finds it given back.
    /// - Returns: Whether this was the first end.
    @discardableResult
    public func end(failure: (any Error)? = nil, first: () -> Void = {}) -> Bool {
        let (action, isFirst) = state.withLock { $0.end(failure: failure) }
        if isFirst { first() }
        switch action {
        case .finish(let writer, nil):
            writer.finish()
        case .finish(let writer, let failure?):
            writer.fail(failure)
        case .answer(let caller, let answer):
            caller.resume(returning: answer)
        case .none:
            break
        }
        return isFirst
    }

    /// The parts as one buffer: the only part as it is, several copied once.
    private static func joined(_ parts: [Data]) -> Data {
        guard parts.count > 1 else { return parts.first ?? Data() }
        var data = Data(capacity: parts.reduce(0) { $0 + $1.count })
        for part in parts {
            data.append(part)
        }
        return data
    }
}
