import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Provider {
    /// Sends the request for `target` and calls `completion` with the result:
    /// the completion-handler form of the async `request(_:options:)`, with Moya's
    /// call shape, in synchronous and async code alike.
    ///
    /// ```swift
    /// let request = provider.request(.user(42)) { result in
    ///     switch result {
    ///     case .success(let response): show(response.data)
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// request.cancel() // completion receives .failure(.cancelled)
    /// ```
    ///
    /// The request starts on the calling thread and runs there until it first
    /// waits (for the network, a delayed stub, or a plugin that suspends). So
    /// an immediate stub, with plugins that do not suspend and no callback
    /// queue, calls `completion` before this method returns, as Moya's stubs
    /// do (when called from code isolated to an actor, such as the main actor,
    /// the first plugin hook already moves off it, and the completion comes
    /// later). On OS versions before macOS 26 and iOS 26 every request starts
    /// asynchronously.
    ///
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - callbackQueue: Where `completion` and `progress` run; `nil` uses the
    ///     provider's ``callbackQueue``, and when that is `nil` too they run on
    ///     whichever thread finished the work (pass `.main` for UI code).
    ///   - options: Per-call values for plugins (see ``RequestOptions``).
    ///   - progress: Receives upload and download progress, in order; when
    ///     `nil`, the handler in `options`, if any.
    ///   - completion: Called exactly once.
    /// - Returns: A handle that cancels the request.
    @discardableResult
    public func request(
        _ target: Target,
        callbackQueue: DispatchQueue? = nil,
        options: RequestOptions = RequestOptions(),
        progress: ProgressHandler? = nil,
        completion: @escaping @Sendable (Result<Response, NetworkError>) -> Void
    ) -> any Cancellable {
        let queue = callbackQueue ?? self.callbackQueue
        var options = options
        if let handler = progress ?? options.progress {
            if let queue {
                options.progress = { @Sendable value in queue.async { handler(value) } }
            } else {
                options.progress = handler
            }
        }
        let task = Self.startImmediately { [options] in
            let result: Result<Response, NetworkError>
            do throws(NetworkError) {
                result = .success(try await self.perform(target, options: options))
            } catch {
                result = .failure(error)
            }
            if let queue {
                queue.async { completion(result) }
            } else {
                completion(result)
            }
        }
        return TaskCancellable(task)
    }

    /// Starts `operation` on the calling thread where the runtime can
    /// (`Task.immediate`), so that work that never waits finishes before the
    /// caller continues; elsewhere as an ordinary task.
    static func startImmediately(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }
}
