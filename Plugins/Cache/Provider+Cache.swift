import Courier
import Foundation

extension Provider {
    /// Sends the request for `target` with the cache strategy `cachePolicy`,
    /// overriding the target's and the plugin's.
    ///
    /// ```swift
    /// let response = try await provider.request(.feed, cachePolicy: .cacheIfPossible)
    /// ```
    ///
    /// Calls made this way also run `stale-while-revalidate` refreshes in the
    /// background (see ``CachePlugin/waitForBackgroundRefreshes()``).
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - cachePolicy: Where the response comes from for this call.
    ///   - options: Other per-call options.
    /// - Returns: The response, from the cache or the server.
    /// - Throws: `NetworkError`; a miss under ``CacheStrategy/cache`` is
    ///   `NetworkError/plugin(_:_:)` with ``CachePlugin/Failure/notCached(_:)``.
    public func request(
        _ target: Target,
        cachePolicy: CacheStrategy,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Response {
        try await refreshingStale(target, cachePolicy: cachePolicy, options: options) { options throws(NetworkError) in
            try await request(target, options: options)
        }
    }

    /// Sends the request for `target` with the cache strategy `cachePolicy`
    /// and maps the response with `mapper`.
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - mapper: Turns the response into a value.
    ///   - cachePolicy: Where the response comes from for this call.
    ///   - options: Other per-call options.
    /// - Returns: The mapped value.
    /// - Throws: `NetworkError`; a mapper's failure is
    ///   `NetworkError/mappingFailed(_:_:)`.
    public func request<Mapper: ResponseMapper>(
        _ target: Target,
        mapper: Mapper,
        cachePolicy: CacheStrategy,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Mapper.Output {
        try await refreshingStale(target, cachePolicy: cachePolicy, options: options) { options throws(NetworkError) in
            try await request(target, mapper: mapper, options: options)
        }
    }

    /// Runs `call` with the strategy and a refresh ticket in its options, then
    /// starts the background refresh the plugin asked for, if any.
    private func refreshingStale<Output>(
        _ target: Target,
        cachePolicy: CacheStrategy,
        options: RequestOptions,
        call: (RequestOptions) async throws(NetworkError) -> Output
    ) async throws(NetworkError) -> Output {
        let ticket = RefreshTicket()
        let output = try await call(options.cachePolicy(cachePolicy).setting(RefreshTicketKey.self, to: ticket))
        if let key = ticket.requestedKey, let plugin = cachePlugin {
            let serverOptions = options.cachePolicy(.server)
            plugin.refreshes.start(key: key) {
                let result: Result<Response, NetworkError>
                do throws(NetworkError) {
                    result = .success(try await self.request(target, options: serverOptions))
                } catch {
                    result = .failure(error)
                }
                plugin.configuration.onBackgroundRefresh?(result)
            }
        }
        return output
    }

    /// The provider's first ``CachePlugin``, if it has one.
    public var cachePlugin: CachePlugin? {
        plugin(CachePlugin.self)
    }
}
