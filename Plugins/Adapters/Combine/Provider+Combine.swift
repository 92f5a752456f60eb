import Courier
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

// MARK: - Publishers

extension Provider {
    /// A publisher that sends the request for `target` when subscribed to and
    /// emits its response.
    ///
    /// Nothing is sent before a subscriber asks for a value; each subscription
    /// sends its own request. Cancelling the subscription cancels the transfer.
    ///
    /// ```swift
    /// let cancellable = provider.requestPublisher(.user(42))
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.statusCode) })
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - callbackQueue: Where the value and the completion are delivered;
    ///     `nil` uses the provider's `callbackQueue`, and when that is `nil` too,
    ///     wherever the request finished.
    ///   - options: Per-call options for plugins (see `RequestOptions`).
    /// - Returns: A publisher of one `Response`, failing with `NetworkError`.
    public func requestPublisher(
        _ target: Target,
        callbackQueue: DispatchQueue? = nil,
        options: RequestOptions = RequestOptions()
    ) -> AnyPublisher<Response, NetworkError> {
        TaskPublisher(queue: callbackQueue ?? self.callbackQueue) { _ async throws(NetworkError) -> Response in
            try await self.request(target, options: options)
        }
        .eraseToAnyPublisher()
    }

    /// A publisher that sends the request for `target` when subscribed to and
    /// emits the response mapped by `mapper`.
    ///
    /// ```swift
    /// provider.requestPublisher(.user(42), mapper: DecodableMapper<User>())
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - mapper: Turns the response into the output.
    ///   - callbackQueue: Where the value and the completion are delivered
    ///     (as for `requestPublisher(_:callbackQueue:options:)`).
    ///   - options: Per-call options for plugins (see `RequestOptions`).
    /// - Returns: A publisher of one mapped value, failing with `NetworkError`
    ///   (a mapper's failure is `NetworkError/mappingFailed(_:_:)`).
    public func requestPublisher<Mapper: ResponseMapper>(
        _ target: Target,
        mapper: Mapper,
        callbackQueue: DispatchQueue? = nil,
        options: RequestOptions = RequestOptions()
    ) -> AnyPublisher<Mapper.Output, NetworkError> where Mapper.Output: Sendable {
        TaskPublisher(queue: callbackQueue ?? self.callbackQueue) { _ async throws(NetworkError) -> Mapper.Output in
            try await self.request(target, mapper: mapper, options: options)
        }
        .eraseToAnyPublisher()
    }

    /// A publisher that sends the request for `target` when subscribed to and
    /// emits its progress, in order, then the response.
    ///
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - callbackQueue: Where events and the completion are delivered (as for
    ///     `requestPublisher(_:callbackQueue:options:)`).
    ///   - options: Per-call options for plugins (see `RequestOptions`).
    /// - Returns: A publisher of ``ProgressResponse/progress(_:)`` events ending
    ///   with one ``ProgressResponse/response(_:)``, failing with `NetworkError`.
    public func requestWithProgressPublisher(
        _ target: Target,
        callbackQueue: DispatchQueue? = nil,
        options: RequestOptions = RequestOptions()
    ) -> AnyPublisher<ProgressResponse, NetworkError> {
        TaskPublisher(queue: callbackQueue ?? self.callbackQueue) { emit async throws(NetworkError) -> ProgressResponse in
            var options = options
            options.progress = { progress in emit(.progress(progress)) }
            let response = try await self.request(target, options: options)
            return .response(response)
        }
        .eraseToAnyPublisher()
    }
}
