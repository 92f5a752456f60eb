import Courier
import Foundation

/// Why a body could not be read as JSON, in a sentence a person can act on.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`.
public struct JSONMappingFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: Sendable, Equatable {
        /// The body is not JSON.
        case invalidJSON
        /// The body is empty and the mapper fails on empty data.
        case emptyBody
        /// The key path given to the mapper is not a key path.
        case invalidKeyPath
        /// The key path leads nowhere in this body.
        case keyPathNotFound
        /// The body is past one of the mapper's limits (its `maximumDepth`);
        /// `underlyingError` is the `Courier/MappingLimitExceeded` that names it.
        case limitExceeded
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// Where in the JSON it happened (`the top level` for the whole body).
    public let path: String
    /// The sentence.
    public let description: String
    /// The error underneath, if any.
    public let underlyingError: (any Error)?

    init(_ kind: Kind, path: String, _ description: String, underlyingError: (any Error)? = nil) {
        self.kind = kind
        self.path = path
        self.description = description
        self.underlyingError = underlyingError
    }

    static func invalidJSON(_ error: any Error) -> JSONMappingFailure {
        JSONMappingFailure(.invalidJSON, path: JSONKeyPath.format([]), "the body is not valid JSON (\(error.localizedDescription))", underlyingError: error)
    }

    static func tooDeep(_ maximum: Int, limit name: String) -> JSONMappingFailure {
        let limit = MappingLimitExceeded(limit: name, maximum: maximum, reason: "nests arrays and objects deeper than \(maximum) levels")
        return JSONMappingFailure(.limitExceeded, path: JSONKeyPath.format([]), "\(limit)", underlyingError: limit)
    }

    static let emptyBody = JSONMappingFailure(
        .emptyBody, path: JSONKeyPath.format([]),
        "the body is empty, but JSON was expected; pass failsOnEmptyData: false to read an empty body as null"
    )

    static func parse(_ keyPath: String) throws(JSONMappingFailure) -> JSONKeyPath {
        guard let path = JSONKeyPath(keyPath) else {
            throw JSONMappingFailure(
                .invalidKeyPath, path: keyPath,
                "“\(keyPath)” is not a key path; write keys separated by dots with optional [index] steps, as data.items[3]"
            )
        }
        return path
    }

    /// What both JSON mappers do, in order: check the key path, answer an
    /// empty body, check the nesting before any parser runs, parse, and
    /// pick the value at the key path.
    static func read<Value>(
        _ data: Data,
        keyPath: String?,
        failsOnEmptyData: Bool,
        maximumDepth: Int,
        limitName: String,
        empty: Value,
        parse: (Data) throws -> Value,
        select: (Value, JSONKeyPath) throws(JSONKeyPath.Miss) -> Value
    ) throws(JSONMappingFailure) -> Value {
        let path = try keyPath.map { keyPath throws(JSONMappingFailure) in try Self.parse(keyPath) }
        if data.isEmpty {
            if failsOnEmptyData { throw .emptyBody }
            return empty
        }
        if JSONNesting.exceeds(maximumDepth, in: data) {
            throw .tooDeep(maximumDepth, limit: limitName)
        }
        let root: Value
        do {
            root = try parse(data)
        } catch {
            throw .invalidJSON(error)
        }
        guard let path else { return root }
        do {
            return try select(root, path)
        } catch {
            throw .notFound(error, in: path)
        }
    }

    static func notFound(_ miss: JSONKeyPath.Miss, in path: JSONKeyPath) -> JSONMappingFailure {
        JSONMappingFailure(.keyPathNotFound, path: miss.path, "expected a value at \(miss.path) (key path \(path)), found \(miss.found)")
    }
}
