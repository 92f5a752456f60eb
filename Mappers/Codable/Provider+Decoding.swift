import Courier
import Foundation

extension Provider {
    /// Sends the request for `target` and decodes its JSON body.
    ///
    /// ```swift
    /// let user = try await provider.request(.user(42), decoding: User.self)
    /// let items = try await provider.request(.search("swift"), decoding: [Item].self, atKeyPath: "data.items")
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - type: The type to decode.
    ///   - decoder: The decoder, with its date and key strategies.
    ///   - keyPath: Where the value sits in the body (`data.items[0]`), or `nil`.
    ///   - failsOnEmptyData: Whether an empty body is an error, or decodes as `null`.
    ///   - options: Per-call options for plugins.
    /// - Returns: The decoded value.
    /// - Throws: `Courier/NetworkError`; a body that does not decode is
    ///   `.mappingFailed(response, DecodingFailure)`.
    public func request<Output: Decodable>(
        _ target: Target,
        decoding type: Output.Type,
        decoder: JSONDecoder = JSONDecoder(),
        atKeyPath keyPath: String? = nil,
        failsOnEmptyData: Bool = true,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Output {
        let mapper = DecodableMapper<Output>(decoder: decoder, atKeyPath: keyPath, failsOnEmptyData: failsOnEmptyData)
        return try await request(target, mapper: mapper, options: options)
    }
}

extension TargetType {
    /// Pairs this target with a ``DecodableMapper``, so that
    /// `provider.request(target.decoding(User.self))` returns a `User`.
    ///
    /// An enum of endpoints gives each case its type once, and call sites
    /// then parse nothing:
    /// ```swift
    /// extension API {
    ///     static func user(id: Int) -> Typed<API, DecodableMapper<User>> { API.user(id).decoding(User.self) }
    /// }
    /// let user = try await provider.request(API.user(id: 1)) // a User
    /// ```
    /// - Parameters:
    ///   - type: The type the response decodes to.
    ///   - decoder: The decoder, with its date and key strategies.
    ///   - keyPath: Where the value sits in the body, or `nil`.
    /// - Returns: The target with its mapper.
    public func decoding<Output: Decodable>(
        _ type: Output.Type,
        decoder: JSONDecoder = JSONDecoder(),
        atKeyPath keyPath: String? = nil
    ) -> Typed<Self, DecodableMapper<Output>> {
        returning(DecodableMapper(decoder: decoder, atKeyPath: keyPath))
    }
}
