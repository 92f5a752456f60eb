#if !XML
#error("CourierXML needs the package trait \"XML\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation
import XMLCoder

/// Decodes an XML body into any `Decodable` type with XMLCoder.
///
/// `XMLDecoder` is a mutable class, so the mapper makes a fresh one for each
/// response from `makeDecoder`: configure it there. Before XMLCoder reads the
/// body, ``limits`` bound how deep it nests and refuse entities and (by
/// default) document types (see ``XMLLimits``).
///
/// ```swift
/// let mapper = XMLDecodableMapper<Catalog> {
///     let decoder = XMLDecoder()
///     decoder.dateDecodingStrategy = .iso8601
///     return decoder
/// }
/// let catalog = try await provider.request(.catalog, mapper: mapper)
/// ```
public struct XMLDecodableMapper<Output: Decodable>: ResponseMapper {
    /// Makes the decoder for one response.
    public let makeDecoder: @Sendable () -> XMLDecoder
    /// What a body may cost to decode: nesting, entities, document types.
    public let limits: XMLLimits

    /// Creates a mapper.
    /// - Parameters:
    ///   - limits: What a body may cost to decode; the defaults of
    ///     ``XMLLimits`` if omitted.
    ///   - makeDecoder: Makes a configured `XMLDecoder`; a default one if
    ///     omitted.
    public init(limits: XMLLimits = XMLLimits(), makeDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() }) {
        self.limits = limits
        self.makeDecoder = makeDecoder
    }

    /// Decodes the response's body.
    /// - Throws: ``XMLMappingFailure`` saying what was expected where; for a
    ///   body past ``limits``, its `underlyingError` is the
    ///   `Courier/MappingLimitExceeded` that names the limit.
    public func map(_ response: Response) throws(XMLMappingFailure) -> Output {
        do {
            try limits.check(response.data)
            return try makeDecoder().decode(Output.self, from: response.data)
        } catch {
            throw XMLMappingFailure(error)
        }
    }
}

extension Provider {
    /// Sends the request for `target` and decodes its XML body.
    ///
    /// ```swift
    /// let feed = try await provider.request(.feed, decodingXML: RSSFeed.self)
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - type: The type to decode.
    ///   - makeDecoder: Makes a configured `XMLDecoder` for the response.
    ///   - limits: What the body may cost to decode (see ``XMLLimits``).
    ///   - options: Per-call options for plugins.
    /// - Returns: The decoded value.
    /// - Throws: `Courier/NetworkError`; a body that does not decode, or is
    ///   past a limit, is `.mappingFailed(response, XMLMappingFailure)`.
    public func request<Output: Decodable>(
        _ target: Target,
        decodingXML type: Output.Type,
        makeDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() },
        limits: XMLLimits = XMLLimits(),
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Output {
        try await request(target, mapper: XMLDecodableMapper<Output>(limits: limits, makeDecoder: makeDecoder), options: options)
    }
}
