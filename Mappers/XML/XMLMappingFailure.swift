#if !XML
#error("CourierXML needs the package trait \"XML\": add it to the traits of your Courier dependency.")
#endif

import Courier

/// Why an XML body could not be decoded, in a sentence that says what was
/// expected where.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`.
public struct XMLMappingFailure: Error, Sendable, CustomStringConvertible {
    /// Where in the document it happened, as `catalog.book[1].price`.
    public let path: String
    /// The sentence.
    public let description: String
    /// What XMLCoder threw, or the `Courier/MappingLimitExceeded` that
    /// stopped the body before XMLCoder read it.
    public let underlyingError: any Error

    /// Describes what XMLCoder threw.
    init(_ error: any Error) {
        underlyingError = error
        if let limit = error as? MappingLimitExceeded {
            path = ""
            description = "\(limit)"
            return
        }
        guard let error = error as? DecodingError else {
            path = ""
            description = "the body is not valid XML (\(error))"
            return
        }
        switch error {
        case .typeMismatch(let type, let context):
            path = Self.path(context.codingPath)
            description = "expected \(type) at \(path), found a value that is not one"
        case .valueNotFound(let type, let context):
            path = Self.path(context.codingPath)
            description = "expected \(type) at \(path), found nothing"
        case .keyNotFound(let key, let context):
            path = Self.path(context.codingPath + [key])
            description = "expected an element or attribute at \(path), found none"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            path = Self.path([])
            description = "the body is not valid XML (\(context.underlyingError.map { "\($0)" } ?? context.debugDescription))"
        case .dataCorrupted(let context):
            path = Self.path(context.codingPath)
            description = "invalid value at \(path): \(context.debugDescription)"
        @unknown default:
            path = ""
            description = "\(error)"
        }
    }

    /// `catalog.book[1].price`; element positions become `[n]`.
    private static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        var previousIndex: Int?
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "\(index)" || key.stringValue == "Index \(index)" {
                // XMLCoder repeats an element's index in its coding path.
                if previousIndex != index { text += "[\(index)]" }
                previousIndex = index
                continue
            }
            previousIndex = nil
            text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
        return text.isEmpty ? "the root element" : text
    }
}
