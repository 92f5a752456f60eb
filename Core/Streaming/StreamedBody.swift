import Foundation

/// The body of a streamed call, from the response head to its end: reads the
/// transport's chunks under the stream's byte limit, keeps the transfer's idle
/// time-out and deadline watched until the end, and tells the call's plugins
/// how the stream ended (see ``RequestContext/onStreamEnd(_:)``).
///
/// It ends once: finished, failed, or stopped by its reader (an iterator
/// dropped, a task cancelled), which closes the connection at once.
final class StreamedBody: Sendable {
    private typealias Machine = StreamedBodyStateMachine<BodyReader>

    private let state: Locked<Machine>
    private let control: TransferControl?
    private let watch: (watchdog: Watchdog, id: Int)?
    private let context: RequestContext?
    private let startedAt = DispatchTime.now().uptimeNanoseconds

    /// A body the transfer stage hands over with the head: its transfer's
    /// control and watch stay in force until the body ends, and it is read
    /// under `limit`, expecting `announced` bytes when the head said.
    init(stream body: ResponseBody, control: TransferControl, watch: (watchdog: Watchdog, id: Int), limit: ResponseTooLarge?, announced: Int64?,
         context: RequestContext?) {
        state = Locked(Machine(BodyReader(body, control: control, limit: limit, announced: announced)))
        self.control = control
        self.watch = watch
        self.context = context
    }

    /// A body that is already whole: a stub's sample, a cached response.
    init(whole data: Data, context: RequestContext?) {
        state = Locked(Machine(BodyReader(ResponseBody(data), control: nil, limit: nil, announced: nil)))
        control = nil
        watch = nil
        self.context = context
    }

    deinit {
        stop()
    }

    /// The next chunk, decoded by the plugins' decoders, or `nil` at the end
    /// (and for every read after it).
    /// - Throws: ``NetworkError``: ``NetworkError/responseTooLarge(_:)`` past
    ///   the stream's limit, ``NetworkError/timedOut(_:)`` at the idle
    ///   time-out or the deadline, ``NetworkError/cancelled`` when the task
    ///   was cancelled, ``NetworkError/connectionLost(_:)`` when the body broke
    ///   off; whatever a decoder threw.
    ///
    /// The first iterator to read, `reader`, owns the body; another
    /// iterator's read fails at once while the owner may still read, and
    /// gets `nil` once it is done.
    ///
    /// A view that parses the body (lines, events, values) reads `holdingTheEnd`:
    /// the plugins hear of the end only when it calls ``reachedTheEnd()``,
    /// after it has handled what it held back (a last line without its line
    /// ending), so that element is counted, and a failure to parse it is how
    /// the stream ended.
    nonisolated(nonsending) func next(by reader: ObjectIdentifier, holdingTheEnd: Bool = false) async throws(NetworkError) -> Data? {
        while true {
            let chunk: Data
            let decoders: [any StreamedBodyDecoder]
            switch try await nextArrived(by: reader) {
            case .chunk(let arrived, let registered):
                guard !registered.isEmpty else {
                    // An empty chunk is no chunk for the caller.
                    if arrived.isEmpty { continue }
                    return arrived
                }
                (chunk, decoders) = (arrived, registered)
            case .busy:
                // Another iterator owns the body, or a read is on its way:
                // this one is refused, and the body goes on for the other.
                throw .transport(ConcurrentBodyRead())
            case .end:
                let tail: Data
                do {
                    tail = try finishDecoding()
                } catch {
                    finish(.failed(error))
                    throw error
                }
                if !holdingTheEnd { finish(.finished) }
                return tail.isEmpty ? nil : tail
            }
            let decoded: Data
            do {
                decoded = try Self.decode(chunk, with: decoders)
            } catch {
                stop(failing: error)
                throw error
            }
            if !decoded.isEmpty { return decoded }
        }
    }

    /// `chunk` through every decoder, in order.
    private static func decode(_ chunk: Data, with decoders: [any StreamedBodyDecoder]) throws(NetworkError) -> Data {
        var bytes = chunk
        for decoder in decoders {
            bytes = try decoder.decode(bytes)
        }
        return bytes
    }

    /// What the decoders held back, once the body has ended as it should
    /// (not after it was stopped or failed, and only once).
    private func finishDecoding() throws(NetworkError) -> Data {
        let decoders = state.withLock { $0.takeTail(registered) }
        var tail = Data()
        for decoder in decoders {
            tail = try decoder.decode(tail)
            tail.append(try decoder.finish())
        }
        return tail
    }

    /// The decoders the call's plugins registered.
    private func registered() -> [any StreamedBodyDecoder] {
        context?.streamDecoders ?? []
    }

    private enum Arrival {
        /// A chunk, and the decoders it goes through (none, mostly).
        case chunk(Data, decoders: [any StreamedBodyDecoder])
        case end
        /// Another iterator owns the body, or a read is on its way.
        case busy
    }

    /// The next chunk as the transport delivered it, or the end.
    private nonisolated(nonsending) func nextArrived(by owner: ObjectIdentifier) async throws(NetworkError) -> Arrival {
        var reader: BodyReader
        switch state.withLock({ $0.read(by: owner) }) {
        case .read(let taken): reader = taken
        case .end: return .end
        case .busy: return .busy
        }
        do throws(NetworkError) {
            let chunk = try await reader.next()
            let decoders = state.withLock { $0.readerReturned(reader, atEnd: chunk == nil, decoders: registered) }
            return chunk.map { .chunk($0, decoders: decoders) } ?? .end
        } catch {
            // No chunk to decode, and the body ends here: no decoders.
            state.withLock { $0.readerReturned(reader, atEnd: false, decoders: { [] }) }
            finish(error.isCancelled ? .cancelled : .failed(error))
            throw error
        }
    }

    /// Stops reading: while the body is still arriving, the connection closes
    /// and unread bytes are dropped; the stream ends as cancelled, or as
    /// failed with `failure` when a view refused what it read (nothing
    /// happens when it already ended).
    func stop(failing failure: NetworkError? = nil) {
        let (ended, reader) = state.withLock { ($0.hasEnded, $0.openReader) }
        if ended { return }
        // A body read to its end has no reader open: its transport is done,
        // and stopping its transfer would only cancel a finished request (a
        // hop onto its event loop).
        if let reader {
            control?.abort(.cancelled)
            reader.stop()
        }
        finish(failure.map { .failed($0) } ?? .cancelled)
    }

    /// A view that read `holdingTheEnd` has handled everything the body
    /// held: the body ends as finished (unless it ended otherwise first).
    func reachedTheEnd() {
        finish(.finished)
    }

    /// The iterator `reader` went away: the body stops (the connection
    /// closes) unless another iterator owns it.
    func drop(_ reader: ObjectIdentifier) {
        guard state.withLock({ $0.dropping(reader) }) else { return }
        stop()
    }

    /// Counts one line, event or value a view parsed, for the summary.
    func countElement() {
        state.withLock { $0.countElement() }
    }

    /// Ends the body once: the watch ends and the plugins hear how.
    private func finish(_ outcome: StreamSummary.Outcome) {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds &- startedAt) / 1e9
        let summary = state.withLock { $0.finish(outcome, elapsed: elapsed) }
        guard let summary else { return }
        if let watch { watch.watchdog.unwatch(watch.id) }
        context?.streamEnded(summary)
    }
}
