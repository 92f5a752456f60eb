import Foundation

/// When and how often a server-sent event stream is opened again after it
/// ends or breaks off (see ``Provider/serverSentEvents(_:reconnection:maximumTimeBetweenEvents:streamOptions:options:)``).
///
/// The wait before a reconnection is the server's `retry` (or ``delay``),
/// never less than ``minimumDelay`` nor more than ``maximumDelay``, and it
/// doubles with each reconnection in a row whose connection lasted less than
/// ``maximumDelay``: a server that closes every connection after one event
/// is asked again less and less often, down to once every ``maximumDelay``.
public struct ServerSentEventReconnection: Sendable {
    /// How many times in a row the stream is opened again without an event
    /// arriving in between; an event resets the count.
    public var maximumAttempts: Int
    /// The wait before opening it again, until the server sets its own with
    /// a `retry` field.
    public var delay: TimeInterval
    /// The shortest wait, whatever the server asks for with `retry`.
    public var minimumDelay: TimeInterval
    /// The longest wait, whatever the server asks for and however long the
    /// back-off has grown.
    public var maximumDelay: TimeInterval

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumAttempts: Reconnections in a row without an event; 3 by default.
    ///   - delay: The wait before each, until the server sets one; 3 s by default.
    ///   - minimumDelay: The shortest wait a server can ask for; 1 s by default.
    ///   - maximumDelay: The longest wait; 60 s by default.
    public init(maximumAttempts: Int = 3, delay: TimeInterval = 3, minimumDelay: TimeInterval = 1,
                maximumDelay: TimeInterval = 60) {
        self.maximumAttempts = maximumAttempts
        self.delay = delay
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before a reconnection, in seconds.
    /// - Parameters:
    ///   - serverRetry: The server's `retry`, in milliseconds, if it set one.
    ///   - quickReconnections: The reconnections in a row so far whose
    ///     connection did not last ``maximumDelay``, this one included.
    func wait(serverRetry: Int?, quickReconnections: Int) -> TimeInterval {
        let base = Swift.max(serverRetry.map { Double($0) / 1000 } ?? delay, minimumDelay)
        let doublings = Swift.min(Swift.max(quickReconnections - 1, 0), 30)
        return Swift.min(base * Double(1 << doublings), Swift.max(maximumDelay, minimumDelay))
    }
}

/// The server-sent events of a call, across reconnections; read once.
public struct ServerSentEventStream<Target: TargetType>: AsyncSequence, Sendable {
    /// What the sequence delivers.
    public typealias Element = ServerSentEvent
    /// What ends the sequence with an error.
    public typealias Failure = NetworkError

    let provider: Provider<Target>
    let target: Target
    let first: StreamedResponse
    let reconnection: ServerSentEventReconnection?
    let maximumTimeBetweenEvents: TimeInterval?
    let streamOptions: StreamOptions
    let options: RequestOptions

    /// The first connection's response head.
    public var head: Response { first.head }

    /// The events of one connection, with this stream's limits.
    func events(of response: StreamedResponse) -> ServerSentEvents.Iterator {
        response.serverSentEvents(maximumTimeBetweenEvents: maximumTimeBetweenEvents).makeAsyncIterator()
    }

    /// Makes the iterator that reads the sequence (once).

    public func makeAsyncIterator() -> Iterator {
        // A 204 says there is nothing to stream, and no reconnecting.
        Iterator(stream: self, events: first.statusCode == 204 ? nil : events(of: first))
    }

    /// Reads the events, reconnecting as the stream's policy says.
    public struct Iterator: AsyncIteratorProtocol {
        /// What the sequence delivers.
        public typealias Element = ServerSentEvent
        /// What ends the sequence with an error.
        public typealias Failure = NetworkError

        let stream: ServerSentEventStream
        var events: ServerSentEvents.Iterator?
        var attempts = 0
        var lastEventID: String?
        var reconnectionTime: Int?
        /// When the connection being read was opened.
        var connectedAt = ContinuousClock.now
        /// Reconnections in a row whose connection ended before
        /// ``ServerSentEventReconnection/maximumDelay``.
        var quickReconnections = 0

        /// The next event, or `nil` once the stream ended for good.
        /// - Throws: ``NetworkError`` when the stream fails and may not (or may
        ///   no more) reconnect, or a reconnection is refused.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> ServerSentEvent? {
            while true {
                guard var current = events else { return nil }
                let failure: NetworkError?
                do throws(NetworkError) {
                    let event = try await current.next(isolation: actor)
                    lastEventID = current.lastEventID ?? lastEventID
                    reconnectionTime = current.reconnectionTime ?? reconnectionTime
                    if let event {
                        events = current
                        attempts = 0
                        return event
                    }
                    failure = nil
                } catch {
                    lastEventID = current.lastEventID ?? lastEventID
                    reconnectionTime = current.reconnectionTime ?? reconnectionTime
                    failure = error
                }
                events = nil
                guard let policy = stream.reconnection, failure.map(Self.isReconnectable) ?? true else {
                    if let failure { throw failure }
                    return nil
                }
                let lasted = connectedAt.duration(to: .now) >= .seconds(policy.maximumDelay)
                quickReconnections = lasted ? 0 : quickReconnections + 1
                events = try await reconnect(policy, after: failure)
            }
        }

        /// The next event, or `nil` once the stream ended for good.
        /// - Throws: ``NetworkError`` as ``next(isolation:)`` does.
        public mutating func next() async throws(NetworkError) -> ServerSentEvent? {
            try await next(isolation: nil)
        }

        /// Opens the stream again, waiting before each try, until one opens,
        /// the attempts run out, or the server answers 204 (the end).
        nonisolated(nonsending) private mutating func reconnect(_ policy: ServerSentEventReconnection, after failure: NetworkError?)
            async throws(NetworkError) -> ServerSentEvents.Iterator? {
            var lastFailure = failure
            while attempts < policy.maximumAttempts {
                attempts += 1
                let delay = policy.wait(serverRetry: reconnectionTime, quickReconnections: quickReconnections)
                do {
                    try await Task.sleep(nanoseconds: Watchdog.nanoseconds(delay))
                } catch {
                    throw .cancelled
                }
                do throws(NetworkError) {
                    let response = try await stream.provider.openStream(
                        stream.target, streamOptions: stream.streamOptions, options: stream.options,
                        eventStream: true, lastEventID: lastEventID)
                    if response.statusCode == 204 { return nil }
                    connectedAt = .now
                    return stream.events(of: response)
                } catch {
                    guard Self.isReconnectable(error) else { throw error }
                    lastFailure = error
                    quickReconnections += 1
                }
            }
            if let lastFailure { throw lastFailure }
            return nil
        }

        /// Whether a stream that failed this way is worth opening again: the
        /// connection was lost or went quiet, not refused or stopped.
        private static func isReconnectable(_ error: NetworkError) -> Bool {
            switch error {
            case .connectionLost, .timedOut, .noConnection, .serverUnreachable: true
            default: false
            }
        }
    }
}
