#if !Protobuf
#error("CourierProtobuf needs the package trait \"Protobuf\": add it to the traits of your Courier dependency.")
#endif

/// How a protobuf message travels: the binary wire format or its JSON
/// mapping.
public enum ProtobufFormat: String, Sendable, CaseIterable {
    /// The binary wire format.
    case binary
    /// The canonical JSON mapping.
    case json

    /// The `Content-Type` Courier sends for this format.
    public var contentType: String {
        switch self {
        case .binary: "application/x-protobuf"
        case .json: "application/json"
        }
    }

    /// The format a `Content-Type` names.
    ///
    /// Binary: `application/x-protobuf`, `application/protobuf`,
    /// `application/vnd.google.protobuf`, `application/x-google-protobuf`,
    /// `application/octet-stream`. JSON: `application/json` and any `+json`
    /// type.
    /// - Parameter contentType: A header value, parameters allowed.
    /// - Returns: The format, or `nil` for any other media type.
    public init?(contentType: String) {
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingWhitespace().lowercased() } ?? ""
        switch mediaType {
        case "application/x-protobuf", "application/protobuf", "application/vnd.google.protobuf",
             "application/x-google-protobuf", "application/octet-stream":
            self = .binary
        case "application/json":
            self = .json
        case let type where type.hasSuffix("+json"):
            self = .json
        case let type where type.hasSuffix("+proto") || type.hasSuffix("+protobuf"):
            self = .binary
        default:
            return nil
        }
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
