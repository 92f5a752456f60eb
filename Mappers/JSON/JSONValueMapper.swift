import Courier
import Foundation

/// Reads a JSON body as a ``JSONValue``, optionally the value at a key path.
///
/// ```swift
/// let items = try await provider.request(.search("swift"), mapper: JSONValueMapper(atKeyPath: "data.items"))
/// let firstName = items[0]?["name"]?.stringValue
/// ```
public struct JSONValueMapper: ResponseMapper {
    /// Where the value sits in the body (`data.items[0]`), or `nil`.
    public let keyPath: String?
    /// Whether an empty body is an error, or reads as ``JSONValue/null``.
    public let failsOnEmptyData: Bool
    /// How deep arrays and objects may nest in the body, checked on its bytes
    /// before any parser reads them; 128 levels by default. A body nested
    /// deeper fails with ``JSONMappingFailure/Kind/limitExceeded`` at once,
    /// whatever its size.
    public let maximumDepth: Int

    /// Creates a mapper.
    /// - Parameters:
    ///   - keyPath: Dot-separated keys with optional `[index]` steps, or `nil`
    ///     for the whole body.
    ///   - failsOnEmptyData: Whether an empty body is an error (the default)
    ///     or reads as `null`.
    ///   - maximumDepth: How deep arrays and objects may nest in the body.
    public init(atKeyPath keyPath: String? = nil, failsOnEmptyData: Bool = true, maximumDepth: Int = 128) {
        self.keyPath = keyPath
        self.failsOnEmptyData = failsOnEmptyData
        self.maximumDepth = maximumDepth
    }

    /// Reads the response's body.
    /// - Throws: ``JSONMappingFailure``.
    public func map(_ response: Response) throws(JSONMappingFailure) -> JSONValue {
        try JSONMappingFailure.read(
            response.data, keyPath: keyPath, failsOnEmptyData: failsOnEmptyData, maximumDepth: maximumDepth,
            limitName: "JSONValueMapper.maximumDepth", empty: .null,
            parse: { try JSONDecoder().decode(JSONValue.self, from: $0) },
            select: { root, path throws(JSONKeyPath.Miss) in try root.value(at: path) }
        )
    }
}
