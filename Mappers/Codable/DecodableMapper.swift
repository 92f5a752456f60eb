import Courier
import Foundation

/// Decodes a JSON response into any `Decodable` type, optionally from a value
/// nested inside the body.
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.dateDecodingStrategy = .iso8601
/// let mapper = DecodableMapper<[Item]>(decoder: decoder, atKeyPath: "data.items")
/// let items = try await provider.request(.items, mapper: mapper)
/// ```
///
/// A failure is a ``DecodingFailure`` that says what was expected where
/// (`expected Int at data.items[3].id, found a string of 1 character`), reaching the
/// caller inside `Courier/NetworkError/mappingFailed(_:_:)`.
public struct DecodableMapper<Output: Decodable>: ResponseMapper {
    /// The decoder, with its date, data and key strategies.
    public let decoder: JSONDecoder
    /// Where the value sits in the body (`data.items`, `data.items[3]`), or
    /// `nil` for the whole body.
    public let keyPath: String?
    /// Whether an empty body is an error. When `false`, an empty body decodes
    /// as JSON `null` (an `Optional` output becomes `nil`), else as `{}`, else
    /// as `[{}]` (Moya's `failsOnEmptyData`).
    public let failsOnEmptyData: Bool
    /// How deep arrays and objects may nest in the body, checked on its bytes
    /// before any parser reads them; 128 levels by default. A body nested
    /// deeper fails with ``DecodingFailure/Kind/limitExceeded`` (a
    /// `Courier/MappingLimitExceeded` underneath) at once, whatever its size.
    public let maximumDepth: Int

    /// Creates a mapper.
    /// - Parameters:
    ///   - decoder: The decoder to use; a default `JSONDecoder` if omitted.
    ///     Do not change it after handing it over.
    ///   - keyPath: Dot-separated keys with optional `[index]` steps into the
    ///     body's JSON, using the JSON's own key names.
    ///   - failsOnEmptyData: Whether an empty body is an error (the default)
    ///     or decodes as `null`, `{}` or `[{}]`.
    ///   - maximumDepth: How deep arrays and objects may nest in the body.
    public init(
        decoder: JSONDecoder = JSONDecoder(),
        atKeyPath keyPath: String? = nil,
        failsOnEmptyData: Bool = true,
        maximumDepth: Int = 128
    ) {
        self.decoder = decoder
        self.keyPath = keyPath
        self.failsOnEmptyData = failsOnEmptyData
        self.maximumDepth = maximumDepth
    }

    /// Decodes the response's body.
    /// - Throws: ``DecodingFailure``.
    public func map(_ response: Response) throws(DecodingFailure) -> Output {
        try decode(response.data)
    }

    /// Decodes `data` as this mapper would decode a response body.
    /// - Parameter data: A JSON document.
    /// - Returns: The decoded value.
    /// - Throws: ``DecodingFailure`` saying what was expected where.
    public func decode(_ data: Data) throws(DecodingFailure) -> Output {
        if data.isEmpty {
            guard !failsOnEmptyData else {
                throw DecodingFailure(
                    kind: .emptyBody, path: keyPath ?? JSONKeyPath.format([]),
                    description: "the body is empty, but \(Output.self) was expected; "
                        + "decode an Optional with failsOnEmptyData: false if an empty body is fine"
                )
            }
            return try decodeEmptyBody()
        }
        if JSONNesting.exceeds(maximumDepth, in: data) {
            let limit = MappingLimitExceeded(
                limit: "DecodableMapper.maximumDepth", maximum: maximumDepth,
                reason: "nests arrays and objects deeper than \(maximumDepth) levels"
            )
            throw DecodingFailure(kind: .limitExceeded, path: JSONKeyPath.format([]), description: "\(limit)", underlyingError: limit)
        }
        guard let keyPath else { return try decodeValue(data, prefix: [], root: nil) }
        guard let path = JSONKeyPath(keyPath) else {
            throw DecodingFailure(
                kind: .invalidKeyPath, path: keyPath,
                description: "“\(keyPath)” is not a key path; write keys separated by dots with optional [index] steps, as data.items[3]"
            )
        }
        let nested = try nestedValue(at: path, in: data)
        let nestedData: Data
        do {
            nestedData = try JSONSerialization.data(withJSONObject: nested, options: [.fragmentsAllowed])
        } catch {
            throw DecodingFailure(kind: .invalidJSON, path: keyPath, description: "the value at \(keyPath) cannot be re-read as JSON", underlyingError: error)
        }
        return try decodeValue(nestedData, prefix: path.components, root: nested)
    }

    // MARK: - Steps

    /// An empty body that may be empty decodes as `null` (an `Optional` is
    /// `nil`), else as `{}`, else as `[{}]`, the first that `Output` accepts,
    /// as Moya does.
    private func decodeEmptyBody() throws(DecodingFailure) -> Output {
        for standIn in ["null", "{}", "[{}]"] {
            if let value = try? decoder.decode(Output.self, from: Data(standIn.utf8)) { return value }
        }
        throw DecodingFailure(
            kind: .emptyBody, path: keyPath ?? JSONKeyPath.format([]),
            description: "the body is empty, and \(Output.self) cannot be decoded from null, {} or [{}]"
        )
    }

    private func nestedValue(at path: JSONKeyPath, in data: Data) throws(DecodingFailure) -> Any {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw DecodingFailure(
                kind: .invalidJSON, path: JSONKeyPath.format([]),
                description: "the body is not valid JSON (\(error.localizedDescription))", underlyingError: error
            )
        }
        do {
            return try path.value(in: root)
        } catch {
            throw DecodingFailure(
                kind: .keyPathNotFound, path: error.path,
                description: "expected a value at \(error.path) (key path \(path)), found \(error.found)"
            )
        }
    }

    /// `root` is the parsed JSON when already known; otherwise it is parsed
    /// only on failure, to say what was found.
    private func decodeValue(_ data: Data, prefix: [JSONKeyPath.Component], root: Any?) throws(DecodingFailure) -> Output {
        do {
            return try decoder.decode(Output.self, from: data)
        } catch let error as DecodingError {
            let root = root ?? (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
            throw DecodingFailure.translating(error, prefix: prefix, root: root)
        } catch {
            throw DecodingFailure(kind: .invalidValue, path: JSONKeyPath.format(prefix), description: "\(error)", underlyingError: error)
        }
    }
}
