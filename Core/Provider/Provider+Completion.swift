import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Provider {
    /// Sends the request for `target` and calls `completion` with the result:
    /// the completion-handler form of ``request(_:options:progress:)``.
    ///
    /// ```swift
    /// let request = provider.request(.user(42), callbackQueue: .main) { result in
    ///     switch result {
    ///     case .success(let response): show(response.data)
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// request.cancel() // completion receives .failure(.cancelled)
    /// ```
    ///
    /// - Parameters:
    ///   - callbackQueue: Where `completion` and `progress` run; `nil` runs them
    ///     on whatever thread finished the work (pass `.main` for UI code).
    ///   - progress: Receives upload and download progress, in order.
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
        let progressOnQueue: ProgressHandler? = progress.map { progress in
            guard let callbackQueue else { return progress }
            return { value in callbackQueue.async { progress(value) } }
        }
        let task = Task {
            let result: Result<Response, NetworkError>
            do throws(NetworkError) {
                result = .success(try await self.perform(target, options: options, progress: progressOnQueue))
            } catch {
                result = .failure(error)
            }
            if let callbackQueue {
                callbackQueue.async { completion(result) }
            } else {
                completion(result)
            }
        }
        return TaskCancellable(task)
    }
}
