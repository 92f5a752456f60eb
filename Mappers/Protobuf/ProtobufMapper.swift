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
    /// The largest body decoded, in bytes: 4 MiB unless set (gRPC's default
    /// for a received message). A larger body fails with
    /// ``ProtobufMappingFailure/Kind/limitExceeded`` before SwiftProtobuf
    /// reads it. How deep messages may nest is `messageDepthLimit` of
    /// ``binaryOptions`` and ``jsonOptions`` (100 unless set); a body nested
    /// deeper fails with the same kind.
    public let maximumMessageSize: Int

    /// Creates a mapper.
    /// - Parameters:
    ///   - format: A format that overrides the `Content-Type`; `nil` (the
    ///     default) to follow it, reading binary when there is none.
    ///   - binaryOptions: Options for the binary format.
    ///   - jsonOptions: Options for JSON.
    ///   - maximumMessageSize: The largest body decoded, in bytes.
    public init(
        format: ProtobufFormat? = nil,
        binaryOptions: BinaryDecodingOptions = BinaryDecodingOptions(),
        jsonOptions: JSONDecodingOptions = JSONDecodingOptions(),
        maximumMessageSize: Int = 4 * 1024 * 1024
    ) {
        self.format = format
        self.binaryOptions = binaryOptions
        self.jsonOptions = jsonOptions
        self.maximumMessageSize = maximumMessageSize
    }

    /// Decodes the response's body.
    /// - Throws: ``ProtobufMappingFailure``; with the kind
    ///   ``ProtobufMappingFailure/Kind/limitExceeded`` for a body past
    ///   ``maximumMessageSize`` or nested past `messageDepthLimit`.
    public func map(_ response: Response) throws(ProtobufMappingFailure) -> Output {
        let format: ProtobufFormat
        if let chosen = self.format { format = chosen } else { format = try Self.format(of: response) }
        guard response.data.count <= maximumMessageSize else {
            throw .limit(MappingLimitExceeded(
                limit: "ProtobufMapper.maximumMessageSize", maximum: maximumMessageSize,
                reason: "is \(response.data.count) bytes, more than \(maximumMessageSize)"
            ))
        }
        do {
            switch format {
            case .binary: return try Output(serializedBytes: response.data, options: binaryOptions)
            case .json: return try Output(jsonUTF8Data: response.data, options: jsonOptions)
            }
        } catch BinaryDecodingError.messageDepthLimit {
            throw .limit(tooDeep(binaryOptions.messageDepthLimit, in: "binaryOptions"))
        } catch JSONDecodingError.messageDepthLimit {
            throw .limit(tooDeep(jsonOptions.messageDepthLimit, in: "jsonOptions"))
        } catch {
            throw .decoding(Output.protoMessageName, format: format, error)
        }
    }

    private func tooDeep(_ maximum: Int, in options: String) -> MappingLimitExceeded {
        MappingLimitExceeded(
            limit: "ProtobufMapper.\(options).messageDepthLimit", maximum: maximum,
            reason: "nests messages deeper than \(maximum) levels"
        )
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
