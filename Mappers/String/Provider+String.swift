import Courier

extension Provider {
    /// Sends the request for `target` and reads its body as text (see
    /// ``StringMapper``).
    ///
    /// ```swift
    /// let text = try await provider.requestString(.readme)
    /// let title = try await provider.requestString(.article(7), atKeyPath: "data.title")
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - charset: A charset that overrides the `Content-Type`'s, or `nil`.
    ///   - keyPath: Where a string sits in a JSON body, or `nil` for the whole body.
    ///   - options: Per-call options for plugins.
    /// - Returns: The text.
    /// - Throws: `Courier/NetworkError`; a body that is not text in its
    ///   charset is `.mappingFailed(response, StringMappingFailure)`.
    public func requestString(
        _ target: Target,
        charset: Charset? = nil,
        atKeyPath keyPath: String? = nil,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> String {
        try await request(target, mapper: StringMapper(charset: charset, atKeyPath: keyPath), options: options)
    }
}
