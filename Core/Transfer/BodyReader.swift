import Foundation

/// Reads one response body under its transfer's rules, whichever way the body
/// is used: collected into memory, written to a download, dropped after a
/// redirect, or handed to the caller of a streamed call.
///
/// It is the one place that:
/// - hands the idle clock to the stream, which runs it only while a chunk
///   is awaited;
/// - counts the bytes against the body's limit, and stops the transfer past it;
/// - checks the end against the `Content-Length` the head announced;
/// - stops the transport's stream when the transfer is stopped or the reading
///   task is cancelled;
/// - names a body that broke off, by one rule (``brokenBody(_:)``).
///
/// A value with one reader at a time: the transfer stage keeps it on its
/// stack, a streamed call in its state, taking it out to read and putting the
/// copy that counted the chunk back.
struct BodyReader: Sendable {
    private enum Source: Sendable {
        /// A body the transport collected; `nil` once handed out.
        case whole(Data?)
        case stream(ResponseBodyStream)
    }

    private var source: Source
    private let control: TransferControl?
    private let limit: ResponseTooLarge?
    private let announced: Int64?
    /// The bytes read so far.
    private(set) var received: Int64 = 0

    /// A reader of `body` for the transfer `control` watches (none for a
    /// body that did not come from a transfer: a stub's, a cache's), under
    /// `limit`, expecting `announced` bytes when the head said how many.
    init(_ body: ResponseBody, control: TransferControl?, limit: ResponseTooLarge?, announced: Int64?) {
        switch body.storage {
        case .whole(let data):
            source = .whole(data)
        case .stream(let stream):
            source = .stream(stream)
            if let control {
                control.onAbort { stream.stop() }
                control.reads(stream)
            }
        }
        self.control = control
        self.limit = limit
        self.announced = announced
    }

    /// The next chunk, or `nil` at the end.
    /// - Throws: ``NetworkError/responseTooLarge(_:)`` past the limit (the
    ///   transfer is stopped first); ``NetworkError/connectionLost(_:)`` for a
    ///   body that ended short of its announced length or broke off; the
    ///   transfer's own reason when it was stopped (a time-out, a
    ///   cancellation).
    nonisolated(nonsending) mutating func next() async throws(NetworkError) -> Data? {
        switch source {
        case .whole(let data):
            source = .whole(nil)
            guard let data, !data.isEmpty else { return try end() }
            return try counted(data)
        case .stream(let stream):
            let control = control
            let result: Result<Data?, NetworkError> = await withTaskCancellationHandler {
                do throws(NetworkError) {
                    return .success(try await stream.next())
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                control?.abort(.cancelled)
                stream.stop()
            }
            switch result {
            case .success(let chunk?):
                return try counted(chunk)
            case .success(nil):
                // A transfer stopped while its last chunks waited unread ends
                // with its reason, not as a body that arrived whole.
                if let reason = control?.reason { throw reason.error }
                return try end()
            case .failure(let error):
                throw brokenBody(control?.failure(for: error) ?? error)
            }
        }
    }

    /// Stops reading: the transport's stream ends and its unread chunks are
    /// dropped (nothing happens for a body already whole).
    func stop() {
        if case .stream(let stream) = source { stream.stop() }
    }

    /// What a body that failed after its head is called, however it was
    /// being read (collected, written to a download, or handed to the
    /// caller): the one rule for a body that broke off.
    ///
    /// A time-out, a cancellation and a limit keep their names, as does a
    /// download that could not be written. Otherwise the body broke off: short
    /// of its `Content-Length`, the failure says how much came of how much
    /// was announced; a failure the client could not name (libcurl reports a
    /// chunked body cut short only as an unknown error) is a lost
    /// connection, since the head had arrived. Anything else (an invalid
    /// chunk the client named) keeps its name.
    private func brokenBody(_ failure: NetworkError) -> NetworkError {
        switch failure {
        case .timedOut, .cancelled, .responseTooLarge, .downloadFailed:
            return failure
        default:
            if let announced, received < announced {
                return .connectionLost(IncompleteBody(expected: announced, received: received))
            }
            if case .transport(let error) = failure { return .connectionLost(error) }
            return failure
        }
    }

    private mutating func counted(_ chunk: Data) throws(NetworkError) -> Data {
        received += Int64(chunk.count)
        if let limit, received > limit.bytes {
            control?.abort(.tooLarge(limit))
            stop()
            throw .responseTooLarge(limit)
        }
        return chunk
    }

    private func end() throws(NetworkError) -> Data? {
        if let announced, received < announced {
            throw .connectionLost(IncompleteBody(expected: announced, received: received))
        }
        return nil
    }
}
