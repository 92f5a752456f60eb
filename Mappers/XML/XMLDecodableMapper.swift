#if !XML
#error("CourierXML needs the package trait \"XML\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation
import XMLCoder

/// Decodes an XML body into any `Decodable` type with XMLCoder.
///
/// `XMLDecoder` is a mutable class, so the mapper makes a fresh one for each
/// response from `makeDecoder`: configure it there.
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

    /// Creates a mapper.
    /// - Parameter makeDecoder: Makes a configured `XMLDecoder`; a default one
    ///   if omitted.
    public init(makeDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() }) {
        self.makeDecoder = makeDecoder
    }

    /// Decodes the response's body.
    /// - Throws: ``XMLMappingFailure`` saying what was expected where.
    public func map(_ response: Response) throws(XMLMappingFailure) -> Output {
        do {
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
    ///   - options: Per-call options for plugins.
    /// - Returns: The decoded value.
    /// - Throws: `Courier/NetworkError`; a body that does not decode is
    ///   `.mappingFailed(response, XMLMappingFailure)`.
    public func request<Output: Decodable>(
        _ target: Target,
        decodingXML type: Output.Type,
        makeDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() },
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Output {
        try await request(target, mapper: XMLDecodableMapper<Output>(makeDecoder: makeDecoder), options: options)
    }
}
