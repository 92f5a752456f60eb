#if !Protobuf
#error("CourierProtobuf needs the package trait \"Protobuf\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation
import SwiftProtobuf
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes a protobuf message as the request body, with the `Content-Type`
/// of its format. Use it through `Courier/RequestTask/protobuf(_:format:)`.
///
/// Serializing happens when the request is built: a message that cannot be
/// serialized (a proto2 message missing a required field) ends in
/// `NetworkError.requestBuildFailed`, and nothing is sent.
public struct ProtobufEncoding: ParameterEncoding {
    /// The message to send.
    public let message: any Message
    /// Its format on the wire.
    public let format: ProtobufFormat

    /// Creates an encoding for `message`.
    /// - Parameters:
    ///   - message: The message to send.
    ///   - format: Binary (the default) or JSON.
    public init(message: any Message, format: ProtobufFormat = .binary) {
        self.message = message
        self.format = format
    }

    /// Returns `request` with the serialized message as its body. The
    /// parameters are ignored; a `Content-Type` the request already has stays.
    /// - Throws: `RequestBuildFailure.encodingFailed` when the message cannot
    ///   be serialized.
    public func encode(_ request: URLRequest, with parameters: Parameters?) throws -> URLRequest {
        var request = request
        do {
            switch format {
            case .binary: request.httpBody = try message.serializedBytes()
            case .json: request.httpBody = try message.jsonUTF8Data()
            }
        } catch {
            throw RequestBuildFailure.encodingFailed(error)
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(format.contentType, forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}

extension RequestTask {
    /// A protobuf message as the body, with `Content-Type:
    /// application/x-protobuf` (or `application/json` for ``ProtobufFormat/json``).
    ///
    /// ```swift
    /// var task: RequestTask {
    ///     switch self {
    ///     case .create(let person): .protobuf(person)
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - message: The message to send.
    ///   - format: Binary (the default) or JSON.
    /// - Returns: A task that writes the message when the request is built.
    public static func protobuf(_ message: some Message, format: ProtobufFormat = .binary) -> RequestTask {
        .requestParameters(parameters: [:], encoding: ProtobufEncoding(message: message, format: format))
    }
}
