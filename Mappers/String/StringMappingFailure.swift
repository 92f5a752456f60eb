/// Why a body could not be read as text, in a sentence a person can act on.
///
/// Reaches callers inside `Courier/NetworkError/mappingFailed(_:_:)`.
public enum StringMappingFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `Content-Type` names a charset Courier does not read.
    case unsupportedCharset(String)
    /// The body holds bytes the charset does not allow.
    case invalidBytes(Charset)
    /// A key path was given and the body is not JSON.
    case invalidJSON(String)
    /// The key path given to the mapper is not a key path.
    case invalidKeyPath(String)
    /// The key path leads nowhere, or to something other than a string.
    case notAString(path: String, found: String)

    /// The sentence a person reads: what happened and what to do.
    public var description: String {
        switch self {
        case .unsupportedCharset(let label):
            "the body's charset “\(label)” is not supported; "
                + "Courier reads \(Charset.allCases.map(\.rawValue).joined(separator: ", ")); pass a charset to StringMapper to override it"
        case .invalidBytes(let charset):
            "the body is not valid \(charset) text; the server's Content-Type may name the wrong charset"
        case .invalidJSON(let detail):
            "the body is not valid JSON (\(detail)), so the key path cannot be followed"
        case .invalidKeyPath(let keyPath):
            "“\(keyPath)” is not a key path; write keys separated by dots with optional [index] steps, as data.items[3]"
        case .notAString(let path, let found):
            "expected a string at \(path), found \(found)"
        }
    }
}
