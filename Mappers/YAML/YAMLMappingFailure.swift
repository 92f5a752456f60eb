#if !YAML
#error("CourierYAML needs the package trait \"YAML\": add it to the traits of your Courier dependency.")
#endif

import Courier

/// Why a YAML body could not be decoded, in a sentence that says what was
/// expected where.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`.
public struct YAMLMappingFailure: Error, Sendable, CustomStringConvertible {
    /// Where in the document it happened, as `services.web.ports[0]`.
    public let path: String
    /// The sentence.
    public let description: String
    /// What Yams threw, or the `Courier/MappingLimitExceeded` that stopped
    /// the body before Yams read it.
    public let underlyingError: any Error

    /// Describes what Yams threw: a `YamlError` for text that is no YAML, a
    /// `DecodingError` for YAML of the wrong shape; or the limit a body
    /// passed, a `MappingLimitExceeded`, before Yams saw it.
    init(_ error: any Error) {
        underlyingError = error
        if let limit = error as? MappingLimitExceeded {
            path = ""
            description = "\(limit)"
            return
        }
        guard let error = error as? DecodingError else {
            path = ""
            description = "the body is not valid YAML (\(error))"
            return
        }
        let codingPath: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            codingPath = context.codingPath
        case .keyNotFound(let key, let context):
            codingPath = context.codingPath + [key]
        @unknown default:
            codingPath = []
        }
        path = codingPath.reduce(into: "") { text, key in
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        let place = path.isEmpty ? "the top level" : path
        switch error {
        case .typeMismatch(let type, let context):
            description = "expected \(type) at \(place): \(context.debugDescription)"
        case .valueNotFound(let type, _):
            description = "expected \(type) at \(place), found null"
        case .keyNotFound:
            description = "expected a value at \(place), found no such key"
        case .dataCorrupted(let context) where codingPath.isEmpty && context.underlyingError != nil:
            description = "the body is not valid YAML (\(context.underlyingError.map { "\($0)" } ?? ""))"
        default:
            description = "invalid value at \(place): \(error)"
        }
    }
}
