import Courier
import Foundation

extension Provider {
    /// The cached response for `target` (if there is one), then the server's:
    /// the ``CacheStrategy/cacheAndServer`` strategy. The stored entry is
    /// updated from the server's response.
    ///
    /// ```swift
    /// for try await response in provider.requestCacheAndServer(.feed) {
    ///     render(response) // at once from the cache, then again when the server answers
    /// }
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - options: Other per-call options.
    /// - Returns: A sequence of one or two responses; its errors are
    ///   `NetworkError`s. Cancelling the consuming task cancels the request.
    public func requestCacheAndServer(
        _ target: Target,
        options: RequestOptions = RequestOptions()
    ) -> AsyncThrowingStream<Response, any Error> {
        responses(for: target, cachePolicy: .cacheAndServer, options: options)
    }

    /// Every response `cachePolicy` yields for `target`, in order: the cached
    /// one first where the strategy reads the cache, then the server's where
    /// it asks the server. For ``CacheStrategy/custom(_:)`` that is the cached
    /// response (if any), then the server's if the decision says to send;
    /// with neither, the sequence fails with ``CachePlugin/Failure/notCached(_:)``.
    /// Single-response strategies yield one.
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - cachePolicy: The strategy.
    ///   - options: Other per-call options.
    /// - Returns: A sequence of responses; its errors are `NetworkError`s.
    public func responses(
        for target: Target,
        cachePolicy: CacheStrategy,
        options: RequestOptions = RequestOptions()
    ) -> AsyncThrowingStream<Response, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do throws(NetworkError) {
                    try await self.yieldResponses(for: target, cachePolicy: cachePolicy, options: options) { response in
                        continuation.yield(response)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The callback form of `requestCacheAndServer(_:options:)`: `handler`
    /// runs once with the cached response (if there is one) and once with
    /// the server's response or the failure.
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - callbackQueue: Where `handler` runs; `nil` for any thread.
    ///   - options: Other per-call options.
    ///   - handler: Called once per response, and once for a failure.
    /// - Returns: A handle that cancels the request.
    @discardableResult
    public func requestCacheAndServer(
        _ target: Target,
        callbackQueue: DispatchQueue? = nil,
        options: RequestOptions = RequestOptions(),
        handler: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any Cancellable {
        let deliver: @Sendable (Result<Response, NetworkError>) -> Void = { result in
            if let callbackQueue { callbackQueue.async { handler(result) } } else { handler(result) }
        }
        let task = Task {
            do throws(NetworkError) {
                try await self.yieldResponses(for: target, cachePolicy: .cacheAndServer, options: options) { response in
                    deliver(.success(response))
                }
            } catch {
                deliver(.failure(error))
            }
        }
        return TaskCancellable(task)
    }

    // MARK: - The two legs

    private func yieldResponses(
        for target: Target,
        cachePolicy: CacheStrategy,
        options: RequestOptions,
        yield: (Response) -> Void
    ) async throws(NetworkError) {
        let decision: CacheDecision
        switch cachePolicy {
        case .cacheAndServer: decision = CacheDecision(shouldSendRequest: { _, _ in true }, shouldUpdateCache: { _, _, _ in true })
        case .custom(let custom): decision = custom
        case .server, .cache, .cacheIfPossible:
            yield(try await request(target, cachePolicy: cachePolicy, options: options))
            return
        }
        guard cachePlugin != nil else { throw .plugin("CachePlugin", CachePlugin.Failure.pluginMissing) }

        var cached: Response?
        do throws(NetworkError) {
            cached = try await request(target, options: options.cachePolicy(.cache))
        } catch where !error.isCancelled {
            // A miss, or a stored answer that no longer passes validation:
            // either way the server's answer is what counts.
            cached = nil
        }
        if let cached { yield(cached) }
        guard decision.shouldSendRequest(target.unwrapped, cached) else {
            if cached == nil { throw .plugin("CachePlugin", CachePlugin.Failure.notCached(target.baseURL)) }
            return
        }
        yield(try await request(target, options: options.cachePolicy(.custom(decision.sending))))
    }
}
