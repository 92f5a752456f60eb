import Foundation

/// A response body that would cost more to decode than its mapper allows: a
/// nesting too deep, aliases or entities that expand too far, an image with
/// too many pixels, a message too large.
///
/// Mappers of outside input check their limits before handing the bytes to
/// the library that decodes them, and report a body past one inside their
/// own failure (the `underlyingError` of `XMLMappingFailure`,
/// `YAMLMappingFailure`, …), which reaches the caller inside
/// ``NetworkError/mappingFailed(_:_:)``.
///
/// ```swift
/// do {
///     _ = try await provider.request(.config, mapper: YAMLDecodableMapper<Config>())
/// } catch NetworkError.mappingFailed(_, let failure) {
///     let limit = (failure as? YAMLMappingFailure)?.underlyingError as? MappingLimitExceeded
///     print(limit?.limit ?? "not a limit") // YAMLLimits.maximumAliasExpansion
/// }
/// ```
public struct MappingLimitExceeded: Error, Sendable, Equatable, CustomStringConvertible {
    /// The limit's name as it is configured, such as `YAMLLimits.maximumDepth`.
    public let limit: String
    /// The limit's value.
    public let maximum: Int
    /// What the body does past it, such as `nests deeper than 128 levels`.
    public let reason: String
    /// How to accept such a body, such as `raise YAMLLimits.maximumDepth …`.
    public let remedy: String

    /// Creates the error.
    /// - Parameters:
    ///   - limit: The limit's name as it is configured.
    ///   - maximum: The limit's value.
    ///   - reason: What the body does past it, completing "the body …".
    ///   - remedy: How to accept such a body; by default, raising the limit
    ///     in the mapper's configuration.
    public init(limit: String, maximum: Int, reason: String, remedy: String? = nil) {
        self.limit = limit
        self.maximum = maximum
        self.reason = reason
        self.remedy = remedy ?? "raise \(limit) (now \(maximum)) in the mapper's configuration if the server is trusted with more"
    }

    /// What happened and how to allow it.
    public var description: String {
        "the body \(reason), past the limit \(limit); \(remedy)"
    }
}
