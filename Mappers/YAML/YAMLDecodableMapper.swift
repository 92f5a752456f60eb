#if !YAML
#error("CourierYAML needs the package trait \"YAML\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation
import Yams

/// Decodes a YAML body into any `Decodable` type with Yams.
///
/// `YAMLDecoder` is a mutable class, so the mapper makes a fresh one for each
/// response from `makeDecoder`: configure it there.
///
/// ```swift
/// let config = try await provider.request(.config, mapper: YAMLDecodableMapper<ServiceConfig>())
/// ```
public struct YAMLDecodableMapper<Output: Decodable>: ResponseMapper {
    /// Makes the decoder for one response.
    public let makeDecoder: @Sendable () -> YAMLDecoder

    /// Creates a mapper.
    /// - Parameter makeDecoder: Makes a configured `YAMLDecoder`; a default
    ///   one if omitted.
    public init(makeDecoder: @escaping @Sendable () -> YAMLDecoder = { YAMLDecoder() }) {
        self.makeDecoder = makeDecoder
    }

    /// Decodes the response's body.
    /// - Throws: ``YAMLMappingFailure`` saying what was expected where.
    public func map(_ response: Response) throws(YAMLMappingFailure) -> Output {
        do {
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
    ///   - options: Per-call options for plugins.
    /// - Returns: The decoded value.
    /// - Throws: `Courier/NetworkError`; a body that does not decode is
    ///   `.mappingFailed(response, YAMLMappingFailure)`.
    public func request<Output: Decodable>(
        _ target: Target,
        decodingYAML type: Output.Type,
        makeDecoder: @escaping @Sendable () -> YAMLDecoder = { YAMLDecoder() },
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Output {
        try await request(target, mapper: YAMLDecodableMapper<Output>(makeDecoder: makeDecoder), options: options)
    }
}
