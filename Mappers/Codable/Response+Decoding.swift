import Courier
import Foundation

extension Response {
    /// Decodes the JSON body, or the value at `keyPath`, as `type`, with
    /// Moya's semantics.
    ///
    /// ```swift
    /// let user = try response.map(User.self)
    /// let items = try response.map([Item].self, atKeyPath: "data.items")
    /// ```
    ///
    /// With `failsOnEmptyData: false` an empty body decodes as `null` (so an
    /// `Optional` is `nil`), else as `{}`, else as `[{}]`, the first that
    /// `type` accepts: a type whose members are all optional decodes from an
    /// empty body, as in Moya.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: A dotted path into the JSON, with `[index]` steps for
    ///     arrays (`data.items[0]`); `nil` decodes the whole body.
    ///   - decoder: The decoder to use.
    ///   - failsOnEmptyData: Whether an empty body is an error.
    /// - Returns: The decoded value.
    /// - Throws: `NetworkError/mappingFailed(_:_:)` with this response and a
    ///   `DecodingFailure` that names the path where decoding failed.
    public func map<D: Decodable>(
        _ type: D.Type,
        atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(),
        failsOnEmptyData: Bool = true
    ) throws(NetworkError) -> D {
        try map(DecodableMapper<D>(decoder: decoder, atKeyPath: keyPath, failsOnEmptyData: failsOnEmptyData))
    }
}
