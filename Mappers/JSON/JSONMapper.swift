import Courier
import Foundation

/// Reads a JSON body with `JSONSerialization`, as Moya's `mapJSON` does:
/// `[String: Any]`, `[Any]`, `String`, `NSNumber` or `NSNull`.
///
/// Prefer ``JSONValueMapper`` for new code: its output is typed, `Sendable`
/// and keeps integers exact.
///
/// ```swift
/// let json = try await provider.requestJSON(.search("swift"), atKeyPath: "data")
/// let total = (json as? [String: Any])?["total"] as? Int
/// ```
public struct JSONMapper: ResponseMapper {
    /// Where the value sits in the body (`data.items[0]`), or `nil`.
    public let keyPath: String?
    /// Whether an empty body is an error, or reads as `NSNull`.
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
    ///     or reads as `NSNull`.
    ///   - maximumDepth: How deep arrays and objects may nest in the body.
    public init(atKeyPath keyPath: String? = nil, failsOnEmptyData: Bool = true, maximumDepth: Int = 128) {
        self.keyPath = keyPath
        self.failsOnEmptyData = failsOnEmptyData
        self.maximumDepth = maximumDepth
    }

    /// Reads the response's body.
    /// - Throws: ``JSONMappingFailure``.
    public func map(_ response: Response) throws(JSONMappingFailure) -> Any {
        try JSONMappingFailure.read(
            response.data, keyPath: keyPath, failsOnEmptyData: failsOnEmptyData, maximumDepth: maximumDepth,
            limitName: "JSONMapper.maximumDepth", empty: NSNull(),
            parse: { try JSONSerialization.jsonObject(with: $0, options: [.fragmentsAllowed]) },
            select: { root, path throws(JSONKeyPath.Miss) in try path.value(in: root) }
        )
    }
}
