import Courier
import Foundation

extension Response {
    /// Reads the body as text in the charset its `Content-Type` names (UTF-8
    /// when none), or the string at `keyPath` in its JSON, as Moya's
    /// `mapString(atKeyPath:)` does.
    ///
    /// ```swift
    /// let greeting = try response.mapString()
    /// let name = try response.mapString(atKeyPath: "user.name")
    /// ```
    /// - Parameter keyPath: A dotted path into the body's JSON whose value is a
    ///   string; `nil` reads the whole body.
    /// - Returns: The text.
    /// - Throws: `NetworkError/mappingFailed(_:_:)` with this response and a
    ///   ``StringMappingFailure``.
    public func mapString(atKeyPath keyPath: String? = nil) throws(NetworkError) -> String {
        try map(StringMapper(atKeyPath: keyPath))
    }
}
