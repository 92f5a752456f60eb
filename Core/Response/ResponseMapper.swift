/// Turns a ``Response`` into a value: a decoded model, a string, an image.
///
/// Courier's mapper products each ship one (`CourierCodable`'s
/// `DecodableMapper`, `CourierString`'s `StringMapper`, …); write your own for
/// any other format.
///
/// ```swift
/// struct LineCountMapper: ResponseMapper {
///     func map(_ response: Response) throws -> Int {
///         guard let text = String(data: response.data, encoding: .utf8) else { throw BadText() }
///         return text.split(separator: "\n").count
///     }
/// }
/// let lines = try await provider.request(.readme, mapper: LineCountMapper())
/// ```
///
/// ## Implementation requirements
/// `map` runs after validation, off the main actor, possibly on many responses
/// at once; keep it free of shared mutable state. Throw any error: the provider
/// reports it as ``NetworkError/mappingFailed(_:_:)`` with the response attached.
public protocol ResponseMapper<Output>: Sendable {
    /// The mapped value's type.
    associatedtype Output

    /// Maps `response`.
    /// - Throws: When the response does not hold what the mapper expects.
    func map(_ response: Response) throws -> Output
}

/// The response's body as it is.
public struct DataMapper: ResponseMapper {
    /// Creates the mapper.
    public init() {}
    /// Returns the response's body.
    public func map(_ response: Response) -> Data { response.data }
}

/// The response itself, unchanged.
public struct IdentityMapper: ResponseMapper {
    /// Creates the mapper.
    public init() {}
    /// Returns the response unchanged.
    public func map(_ response: Response) -> Response { response }
}
