import AsyncHTTPClient
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1

/// One exchange with nothing to stream: no file either way, no progress, a
/// body of at most one chunk. AsyncHTTPClient collects the response on its
/// event loop and hands it over once, and the idle time-out cancels the
/// AsyncHTTPClient task itself.
///
/// The streaming path has to run the transfer in a Swift task of its own, so
/// the idle time-out can cancel it without cancelling the caller; that task
/// costs a thread hop per request, which the benchmark measured as about a
/// tenth of a small request's time. Requests like this one, the common case,
/// do not need it.
enum BufferedExchange {
    /// Whether `request` can go this way.
    static func fits(_ urlRequest: URLRequest, uploadFile: URL?, request: TransportRequest) -> Bool {
        uploadFile == nil && request.downloadDestination == nil && request.progress == nil
            && (urlRequest.httpBody?.count ?? 0) <= RequestBody.chunkSize
    }

    /// Sends `urlRequest` and collects the response, ending with ``IdleTimeout``
    /// when nothing moved for `idleTimeout` seconds.
    static func run(
        _ urlRequest: URLRequest,
        url: URL,
        on client: HTTPClient,
        idleTimeout: TimeInterval,
        sweeper: IdleSweeper
    ) async throws -> (head: HTTPResponseHead, body: ByteBuffer?) {
        var headers = HTTPHeaders()
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        let outgoing = try HTTPClient.Request(
            url: url,
            method: NIOHTTP1.HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
            headers: headers,
            body: urlRequest.httpBody.map { .data($0) }
        )
        let activity = Activity()
        let current = Locked<HTTPClient.Task<Collected>?>(nil)
        let timedOut = Locked(false)
        let watch = sweeper.watch(activity, idleTimeout: idleTimeout) {
            timedOut.withLock { $0 = true }
            current.withLock { $0 }?.cancel()
        }
        defer { sweeper.unwatch(watch) }
        do {
            return try await withTaskCancellationHandler {
                try await requeuingPoolTimeouts {
                    let task = client.execute(request: outgoing, delegate: Collector(activity: activity), eventLoop: .indifferent)
                    current.withLock { $0 = task }
                    // The watch or a cancellation may have fired before the task was stored.
                    if timedOut.withLock({ $0 }) || Task.isCancelled { task.cancel() }
                    let collected = try await task.futureResult.get()
                    return (collected.head, collected.body)
                }
            } onCancel: {
                current.withLock { $0 }?.cancel()
            }
        } catch {
            if timedOut.withLock({ $0 }) { throw IdleTimeout(seconds: idleTimeout) }
            throw error
        }
    }

    struct Collected: Sendable {
        let head: HTTPResponseHead
        let body: ByteBuffer?
    }

    /// Collects the head and body; AsyncHTTPClient calls it on the task's
    /// event loop, one call at a time.
    final class Collector: HTTPClientResponseDelegate {
        typealias Response = Collected

        private struct State {
            var head: HTTPResponseHead?
            var body: ByteBuffer?
        }

        private let activity: Activity
        private let state = Locked(State())

        init(activity: Activity) {
            self.activity = activity
        }

        func didSendRequestPart(task: HTTPClient.Task<Collected>, _ part: IOData) {
            activity.touch()
        }

        func didReceiveHead(task: HTTPClient.Task<Collected>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            activity.touch()
            state.withLock { $0.head = head }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Collected>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            activity.touch()
            state.withLock { state in
                if state.body == nil {
                    state.body = buffer
                } else {
                    var part = buffer
                    state.body?.writeBuffer(&part)
                }
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<Collected>) throws -> Collected {
            let (head, body) = state.withLock { ($0.head, $0.body) }
            guard let head else { throw NetworkError.transport(URLError(.badServerResponse)) }
            return Collected(head: head, body: body)
        }
    }
}
