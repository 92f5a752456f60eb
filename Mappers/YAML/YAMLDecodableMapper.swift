#if !YAML
#error("CourierYAML needs the package trait \"YAML\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation
import Yams

/// Decodes a YAML body into any `Decodable` type with Yams.
///
/// `YAMLDecoder` is a mutable class, so the mapper makes a fresh one for each
/// response from `makeDecoder`: configure it there. Before Yams reads the
/// body, ``limits`` bound how deep it nests and how far its aliases expand
/// (see ``YAMLLimits``).
///
/// ```swift
/// let config = try await provider.request(.config, mapper: YAMLDecodableMapper<ServiceConfig>())
/// ```
public struct YAMLDecodableMapper<Output: Decodable>: ResponseMapper {
    /// Makes the decoder for one response.
    public let makeDecoder: @Sendable () -> YAMLDecoder
    /// What a body may cost to decode: nesting and alias expansion.
    public let limits: YAMLLimits

    /// Creates a mapper.
    /// - Parameters:
    ///   - limits: What a body may cost to decode; the defaults of
    ///     ``YAMLLimits`` if omitted.
    ///   - makeDecoder: Makes a configured `YAMLDecoder`; a default one if
    ///     omitted.
    public init(limits: YAMLLimits = YAMLLimits(), makeDecoder: @escaping @Sendable () -> YAMLDecoder = { YAMLDecoder() }) {
        self.limits = limits
        self.makeDecoder = makeDecoder
    }

    /// Decodes the response's body.
    /// - Throws: ``YAMLMappingFailure`` saying what was expected where; for a
    ///   body past ``limits``, its `underlyingError` is the
    ///   `Courier/MappingLimitExceeded` that names the limit.
    public func map(_ response: Response) throws(YAMLMappingFailure) -> Output {
        do {
            try limits.check(response.data)
            return try makeDecoder().decode(Output.self, from: response.data)
        } catch {
            throw YAMLMappingFailure(error)
        }
    }
}

extension Provider {
    /// Sends the request for `target` and decodes its YAML body.
    ///
    /// ```swift
    /// let config = try await provider.request(.config, decodingYAML: ServiceConfig.self)
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - type: The type to decode.
    ///   - makeDecoder: Makes a configured `YAMLDecoder` for the response.
    ///   - limits: What the body may cost to decode (see ``YAMLLimits``).
    ///   - options: Per-call options for plugins.
    /// - Returns: The decoded value.
    /// - Throws: `Courier/NetworkError`; a body that does not decode, or is
    ///   past a limit, is `.mappingFailed(response, YAMLMappingFailure)`.
    public func request<Output: Decodable>(
        _ target: Target,
        decodingYAML type: Output.Type,
        makeDecoder: @escaping @Sendable () -> YAMLDecoder = { YAMLDecoder() },
        limits: YAMLLimits = YAMLLimits(),
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Output {
        try await request(target, mapper: YAMLDecodableMapper<Output>(limits: limits, makeDecoder: makeDecoder), options: options)
    }
}
