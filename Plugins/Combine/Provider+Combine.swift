import Courier
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
    ///   - options: Per-call options for plugins (see ``RequestOptions``).
    /// - Returns: A publisher of one ``Response``, failing with ``NetworkError``.
    public func requestPublisher(
        _ target: Target,
        options: RequestOptions = RequestOptions()
    ) -> AnyPublisher<Response, NetworkError> {
        TaskPublisher { _ async throws(NetworkError) -> Response in
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
    ///   - options: Per-call options for plugins (see ``RequestOptions``).
    /// - Returns: A publisher of one mapped value, failing with ``NetworkError``
    ///   (a mapper's failure is ``NetworkError/mappingFailed(_:_:)``).
    public func requestPublisher<Mapper: ResponseMapper>(
        _ target: Target,
        mapper: Mapper,
        options: RequestOptions = RequestOptions()
    ) -> AnyPublisher<Mapper.Output, NetworkError> where Mapper.Output: Sendable {
        TaskPublisher { _ async throws(NetworkError) -> Mapper.Output in
            try await self.request(target, mapper: mapper, options: options)
        }
        .eraseToAnyPublisher()
    }

    /// A publisher that sends the request for `target` when subscribed to and
    /// emits its progress, in order, then the response.
    ///
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - options: Per-call options for plugins (see ``RequestOptions``).
    /// - Returns: A publisher of ``ProgressResponse/progress(_:)`` events ending
    ///   with one ``ProgressResponse/response(_:)``, failing with ``NetworkError``.
    public func requestWithProgressPublisher(
        _ target: Target,
        options: RequestOptions = RequestOptions()
    ) -> AnyPublisher<ProgressResponse, NetworkError> {
        TaskPublisher { emit async throws(NetworkError) -> ProgressResponse in
            let response = try await self.request(target, options: options) { progress in
                emit(.progress(progress))
            }
            return .response(response)
        }
        .eraseToAnyPublisher()
    }
}
