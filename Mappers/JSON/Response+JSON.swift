import Courier
import Foundation

extension Response {
    /// Reads the body as untyped JSON (`[String: Any]`, `[Any]`, a string, a
    /// number, a boolean or `NSNull`), as Moya's `mapJSON` does.
    ///
    /// ```swift
    /// let json = try response.mapJSON() as? [String: Any]
    /// ```
    /// - Parameter failsOnEmptyData: Whether an empty body is an error; when
    ///   `false` it reads as `NSNull()`.
    /// - Returns: The parsed JSON.
    /// - Throws: `NetworkError/mappingFailed(_:_:)` with this response and a
    ///   ``JSONMappingFailure``.
    public func mapJSON(failsOnEmptyData: Bool = true) throws(NetworkError) -> Any {
        try map(JSONMapper(failsOnEmptyData: failsOnEmptyData))
    }
}
