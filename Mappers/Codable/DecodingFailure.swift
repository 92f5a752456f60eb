import Courier
import Foundation

/// Why a body could not be decoded, in a sentence that says what was
/// expected where and what was found instead.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`:
/// ```swift
/// } catch .mappingFailed(_, let failure as DecodingFailure) {
///     print(failure) // expected Int at data.items[3].id, found a string of 1 character
/// }
/// ```
public struct DecodingFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: Sendable, Equatable {
        /// The body is not JSON at all.
        case invalidJSON
        /// The body is empty and the mapper fails on empty data.
        case emptyBody
        /// The key path given to the mapper is not a key path.
        case invalidKeyPath
        /// The key path leads nowhere in this body.
        case keyPathNotFound
        /// A value has another JSON type than the model expects.
        case typeMismatch
        /// A value the model needs is `null`.
        case valueMissing
        /// A key the model needs is absent.
        case keyMissing
        /// A value has the right JSON type but is not acceptable (a date in
        /// another format, an unknown enum case).
        case invalidValue
        /// The body is past one of the mapper's limits (see
        /// ``DecodableMapper/maximumDepth``); `underlyingError` is the
        /// `Courier/MappingLimitExceeded` that names it.
        case limitExceeded
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// Where in the JSON it happened, as `data.items[3].id`.
    public let path: String
    /// The sentence: what was expected where, and what was found.
    public let description: String
    /// The error underneath (a `DecodingError`, a `JSONSerialization` error).
    public let underlyingError: (any Error)?

    /// Creates a failure.
    /// - Parameters:
    ///   - kind: What kind of failure it is.
    ///   - path: Where in the JSON it happened.
    ///   - description: The sentence a person reads.
    ///   - underlyingError: The error underneath, if any.
    public init(kind: Kind, path: String, description: String, underlyingError: (any Error)? = nil) {
        self.kind = kind
        self.path = path
        self.description = description
        self.underlyingError = underlyingError
    }
}

// MARK: - Translating DecodingError

extension DecodingFailure {
    /// Turns a `DecodingError` into a sentence.
    /// - Parameters:
    ///   - error: What the decoder threw.
    ///   - prefix: The key path the decoded value sits at.
    ///   - root: The decoded JSON as `JSONSerialization` objects, to say what
    ///     was found; `nil` when unknown.
    static func translating(_ error: DecodingError, prefix: [JSONKeyPath.Component], root: Any?) -> DecodingFailure {
        switch error {
        case .typeMismatch(let type, let context):
            let path = components(context.codingPath)
            return DecodingFailure(
                kind: .typeMismatch, path: format(prefix + path),
                description: "expected \(name(of: type)) at \(format(prefix + path)), found \(found(at: path, in: root))",
                underlyingError: error
            )
        case .valueNotFound(let type, let context):
            let path = components(context.codingPath)
            return DecodingFailure(
                kind: .valueMissing, path: format(prefix + path),
                description: "expected \(name(of: type)) at \(format(prefix + path)), found \(found(at: path, in: root))",
                underlyingError: error
            )
        case .keyNotFound(let key, let context):
            let path = format(prefix + components(context.codingPath + [key]))
            return DecodingFailure(
                kind: .keyMissing, path: path,
                description: "expected a value at \(path), found no such key",
                underlyingError: error
            )
        case .dataCorrupted(let context):
            let path = components(context.codingPath)
            // The root is only missing when the body did not parse as JSON.
            if path.isEmpty, root == nil {
                let detail = context.underlyingError.map { "\($0.localizedDescription)" } ?? context.debugDescription
                return DecodingFailure(
                    kind: .invalidJSON, path: format(prefix),
                    description: "the body is not valid JSON (\(detail))",
                    underlyingError: error
                )
            }
            return DecodingFailure(
                kind: .invalidValue, path: format(prefix + path),
                description: "invalid value at \(format(prefix + path)), found \(found(at: path, in: root)): \(context.debugDescription)",
                underlyingError: error
            )
        @unknown default:
            return DecodingFailure(kind: .invalidValue, path: format(prefix), description: "\(error)", underlyingError: error)
        }
    }

    private static func format(_ components: [JSONKeyPath.Component]) -> String {
        JSONKeyPath.format(components)
    }

    /// JSONDecoder names array positions `Index 3` with an integer value.
    private static func components(_ codingPath: [any CodingKey]) -> [JSONKeyPath.Component] {
        codingPath.map { key in
            if let index = key.intValue, key.stringValue == "Index \(index)" { return .index(index) }
            return .key(key.stringValue)
        }
    }

    private static func found(at path: [JSONKeyPath.Component], in root: Any?) -> String {
        guard let root, let value = try? JSONKeyPath(components: path).value(in: root) else { return "nothing there" }
        return JSONKeyPath.describe(value)
    }

    private static func name(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary<") { return "an object" }
        if name.hasPrefix("Array<") { return "an array" }
        return name
    }
}
