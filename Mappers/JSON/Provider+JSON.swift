import Courier

extension Provider {
    /// Sends the request for `target` and reads its body with
    /// `JSONSerialization` (see ``JSONMapper``).
    ///
    /// ```swift
    /// let json = try await provider.requestJSON(.status, atKeyPath: "data")
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - keyPath: Where the value sits in the body, or `nil`.
    ///   - failsOnEmptyData: Whether an empty body is an error, or reads as `NSNull`.
    ///   - options: Per-call options for plugins.
    /// - Returns: `[String: Any]`, `[Any]`, `String`, `NSNumber` or `NSNull`.
    /// - Throws: `Courier/NetworkError`; a body that is not JSON is
    ///   `.mappingFailed(response, JSONMappingFailure)`.
    public func requestJSON(
        _ target: Target,
        atKeyPath keyPath: String? = nil,
        failsOnEmptyData: Bool = true,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Any {
        try await request(target, mapper: JSONMapper(atKeyPath: keyPath, failsOnEmptyData: failsOnEmptyData), options: options)
    }

    /// Sends the request for `target` and reads its body as a ``JSONValue``.
    ///
    /// ```swift
    /// let json = try await provider.requestJSONValue(.user(42))
    /// let name = json["name"]?.stringValue
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - keyPath: Where the value sits in the body, or `nil`.
    ///   - failsOnEmptyData: Whether an empty body is an error, or reads as `null`.
    ///   - options: Per-call options for plugins.
    /// - Returns: The JSON value.
    /// - Throws: `Courier/NetworkError`; a body that is not JSON is
    ///   `.mappingFailed(response, JSONMappingFailure)`.
    public func requestJSONValue(
        _ target: Target,
        atKeyPath keyPath: String? = nil,
        failsOnEmptyData: Bool = true,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> JSONValue {
        try await request(target, mapper: JSONValueMapper(atKeyPath: keyPath, failsOnEmptyData: failsOnEmptyData), options: options)
    }
}
