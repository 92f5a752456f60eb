import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Provider {
    /// Sends the request for `target` and returns as soon as the response
    /// head has passed the plugins and the validation, with the body to be
    /// read as it arrives.
    ///
    /// ```swift
    /// let response = try await provider.stream(.export)
    /// for try await row in response.jsonLines(of: Row.self) {
    ///     print(row)
    /// }
    /// ```
    ///
    /// The plugins see the head (with an empty `data`; ``RequestContext/isStreamed``
    /// is `true`) and may replay the request before it reaches the caller (a
    /// token refresh on 401, a retry on 503); once it has, nothing is
    /// replayed. The idle time-out applies between chunks and the deadline
    /// to the whole call, reading included. Unless the request names its
    /// own `Accept-Encoding`, it asks for `identity`, so the body arrives as
    /// the server wrote it on every transport.
    ///
    /// - Parameters:
    ///   - target: The endpoint to call. A download task cannot be streamed.
    ///   - streamOptions: The stream's byte limit.
    ///   - options: Per-call options for the plugins.
    /// - Returns: The response head and its body (see ``StreamedResponse``).
    /// - Throws: ``NetworkError``, as `request(_:options:)` does, before any
    ///   byte of the body is read; ``NetworkError/statusCode(_:)`` carries the
    ///   error body, read up to the provider's in-memory limit.
    public func stream(
        _ target: Target,
        streamOptions: StreamOptions = StreamOptions(),
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> StreamedResponse {
        try await openStream(target, streamOptions: streamOptions, options: options)
    }

    /// Sends the request for `target` and returns its server-sent events as
    /// they arrive, reconnecting as a browser's `EventSource` does when asked.
    ///
    /// ```swift
    /// let events = try await provider.serverSentEvents(.notifications, reconnection: .init(maximumAttempts: 5))
    /// for try await event in events {
    ///     print(event.id ?? "-", event.data)
    /// }
    /// ```
    ///
    /// With `reconnection`, a stream that ends or breaks off is opened again
    /// after the server's `retry` time (or the policy's delay), with the last
    /// event ID as `Last-Event-ID`; a 204 answer ends it, as the
    /// specification says. Without, the sequence ends with the response.
    ///
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - reconnection: Whether and how to reconnect; `nil` never does.
    ///   - maximumTimeBetweenEvents: The longest wait for each connection's
    ///     next event, in seconds, as
    ///     ``StreamedResponse/serverSentEvents(maximumEventSize:maximumTimeBetweenEvents:)``
    ///     has it; a connection past it is reconnected when a policy allows.
    ///   - streamOptions: Each connection's byte limit.
    ///   - options: Per-call options for the plugins.
    /// - Returns: The events, across reconnections.
    /// - Throws: ``NetworkError`` when the first connection fails, as
    ///   ``stream(_:streamOptions:options:)`` does.
    public func serverSentEvents(
        _ target: Target,
        reconnection: ServerSentEventReconnection? = nil,
        maximumTimeBetweenEvents: TimeInterval? = nil,
        streamOptions: StreamOptions = StreamOptions(),
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> ServerSentEventStream<Target> {
        let first = try await openStream(target, streamOptions: streamOptions, options: options, eventStream: true)
        return ServerSentEventStream(provider: self, target: target, first: first, reconnection: reconnection,
                                     maximumTimeBetweenEvents: maximumTimeBetweenEvents,
                                     streamOptions: streamOptions, options: options)
    }

    /// One streamed call: the pipeline with a handoff, then the body it left.
    nonisolated(nonsending) func openStream(
        _ target: Target,
        streamOptions: StreamOptions,
        options: RequestOptions,
        eventStream: Bool = false,
        lastEventID: String? = nil
    ) async throws(NetworkError) -> StreamedResponse {
        let handoff = StreamHandoff(maximumBytes: streamOptions.maximumBytes)
        var defaults: [String: String] = [:]
        var extra: [String: String] = [:]
        if eventStream {
            // An event stream: say so, and where to resume.
            defaults["Accept"] = "text/event-stream"
            defaults["Cache-Control"] = "no-cache"
            if let lastEventID, !lastEventID.isEmpty { extra["Last-Event-ID"] = lastEventID }
        }
        let head: Response
        do {
            head = try await perform(target, options: options, streaming: handoff, extraHeaders: extra, defaultHeaders: defaults)
        } catch {
            throw await Self.withErrorBody(error, from: handoff, limit: transfer.limits.maximumBodySize)
        }
        return StreamedResponse(head: head, body: handoff.take() ?? StreamedBody(whole: head.data, context: handoff.context))
    }

    /// A validation failure with its error body read (up to `limit` bytes),
    /// so the caller sees what the server said; any other failure as it is.
    private static func withErrorBody(_ error: NetworkError, from handoff: StreamHandoff, limit: Int64) async -> NetworkError {
        guard case .statusCode(let response) = error, let body = handoff.take() else {
            handoff.discard()
            return error
        }
        let partial = StreamedResponse(head: response, body: body)
        guard let data = try? await partial.collect(upTo: Int(clamping: limit)) else { return error }
        return .statusCode(response.replacing(data: data))
    }
}
