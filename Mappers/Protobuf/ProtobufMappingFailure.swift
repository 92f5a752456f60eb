#if !Protobuf
#error("CourierProtobuf needs the package trait \"Protobuf\": add it to the traits of your Courier dependency.")
#endif

import Courier

/// Why a body could not be decoded as a protobuf message, in a sentence a
/// person can act on.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`.
public struct ProtobufMappingFailure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: Sendable, Equatable {
        /// The `Content-Type` is neither protobuf nor JSON.
        case unsupportedContentType
        /// The body is not the message in the binary wire format.
        case invalidBinary
        /// The body is not the message in the JSON mapping.
        case invalidJSON
        /// The body is past one of the mapper's limits; `underlyingError` is
        /// the `Courier/MappingLimitExceeded` that names it.
        case limitExceeded
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// The sentence.
    public let description: String
    /// What SwiftProtobuf threw, if anything.
    public let underlyingError: (any Error)?

    static func limit(_ limit: MappingLimitExceeded) -> ProtobufMappingFailure {
        ProtobufMappingFailure(kind: .limitExceeded, description: "\(limit)", underlyingError: limit)
    }

    static func unsupported(_ contentType: String) -> ProtobufMappingFailure {
        ProtobufMappingFailure(
            kind: .unsupportedContentType,
            description: "the response's Content-Type “\(contentType)” is neither protobuf nor JSON; "
                + "pass a format to ProtobufMapper to decode it anyway",
            underlyingError: nil
        )
    }

    static func decoding(_ message: String, format: ProtobufFormat, _ error: any Error) -> ProtobufMappingFailure {
        switch format {
        case .binary:
            ProtobufMappingFailure(
                kind: .invalidBinary,
                description: "the body is not a valid binary \(message) message (\(error)); check that the server sends this message type",
                underlyingError: error
            )
        case .json:
            ProtobufMappingFailure(
                kind: .invalidJSON,
                description: "the body is not a valid \(message) message in protobuf JSON (\(error))",
                underlyingError: error
            )
        }
    }
}
