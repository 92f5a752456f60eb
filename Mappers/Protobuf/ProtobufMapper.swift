#if !Protobuf
#error("CourierProtobuf needs the package trait \"Protobuf\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation
import SwiftProtobuf

/// Decodes a protobuf message, in the binary format or in JSON as the
/// response's `Content-Type` says (see ``ProtobufFormat/init(contentType:)``).
///
/// ```swift
/// let person = try await provider.request(.person(7), mapper: ProtobufMapper<Person>())
/// ```
public struct ProtobufMapper<Output: Message>: ResponseMapper {
    /// The format to use whatever the response says, or `nil` to follow its
    /// `Content-Type`.
    public let format: ProtobufFormat?
    /// Options for the binary format.
    public let binaryOptions: BinaryDecodingOptions
    /// Options for JSON (for example `ignoreUnknownFields`).
    public let jsonOptions: JSONDecodingOptions

    /// Creates a mapper.
    /// - Parameters:
    ///   - format: A format that overrides the `Content-Type`; `nil` (the
    ///     default) to follow it, reading binary when there is none.
    ///   - binaryOptions: Options for the binary format.
    ///   - jsonOptions: Options for JSON.
    public init(
        format: ProtobufFormat? = nil,
        binaryOptions: BinaryDecodingOptions = BinaryDecodingOptions(),
        jsonOptions: JSONDecodingOptions = JSONDecodingOptions()
    ) {
        self.format = format
        self.binaryOptions = binaryOptions
        self.jsonOptions = jsonOptions
    }

    /// Decodes the response's body.
    /// - Throws: ``ProtobufMappingFailure``.
    public func map(_ response: Response) throws(ProtobufMappingFailure) -> Output {
        let format: ProtobufFormat
        if let chosen = self.format { format = chosen } else { format = try Self.format(of: response) }
        do {
            switch format {
            case .binary: return try Output(serializedBytes: response.data, options: binaryOptions)
            case .json: return try Output(jsonUTF8Data: response.data, options: jsonOptions)
            }
        } catch {
            throw .decoding(Output.protoMessageName, format: format, error)
        }
    }

    private static func format(of response: Response) throws(ProtobufMappingFailure) -> ProtobufFormat {
        guard let contentType = response.value(forHTTPHeaderField: "Content-Type") else { return .binary }
        guard let format = ProtobufFormat(contentType: contentType) else { throw .unsupported(contentType) }
        return format
    }
}

extension Provider {
    /// Sends the request for `target` and decodes its body as a protobuf
    /// message (see ``ProtobufMapper``).
    ///
    /// ```swift
    /// let person = try await provider.request(.person(7), decodingProtobuf: Person.self)
    /// ```
    /// - Parameters:
    ///   - target: The endpoint to call.
    ///   - type: The message type.
    ///   - format: A format that overrides the `Content-Type`, or `nil`.
    ///   - options: Per-call options for plugins.
    /// - Returns: The message.
    /// - Throws: `Courier/NetworkError`; a body that does not decode is
    ///   `.mappingFailed(response, ProtobufMappingFailure)`.
    public func request<Output: Message>(
        _ target: Target,
        decodingProtobuf type: Output.Type,
        format: ProtobufFormat? = nil,
        options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Output {
        try await request(target, mapper: ProtobufMapper<Output>(format: format), options: options)
    }
}
