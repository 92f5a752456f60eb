import Courier
import Foundation

/// Reads a body as text in the charset its `Content-Type` names, or a string
/// field inside a JSON body.
///
/// Without a `charset` parameter the mapper honours a byte-order mark and
/// otherwise reads UTF-8. A byte-order mark never ends up in the text.
///
/// ```swift
/// let page = try await provider.requestString(.readme)
/// let title = try await provider.requestString(.article(7), atKeyPath: "data.title")
/// ```
public struct StringMapper: ResponseMapper {
    /// The charset to use whatever the response says, or `nil` to read it
    /// from the `Content-Type`.
    public let charset: Charset?
    /// Where a string sits in a JSON body (`data.title`), or `nil` for the
    /// whole body.
    public let keyPath: String?

    /// Creates a mapper.
    /// - Parameters:
    ///   - charset: A charset that overrides the response's; `nil` (the
    ///     default) to use the `Content-Type`'s.
    ///   - keyPath: Dot-separated keys with optional `[index]` steps to a
    ///     string in a JSON body, or `nil` for the whole body as text.
    public init(charset: Charset? = nil, atKeyPath keyPath: String? = nil) {
        self.charset = charset
        self.keyPath = keyPath
    }

    /// Reads the response's body.
    /// - Throws: ``StringMappingFailure``.
    public func map(_ response: Response) throws(StringMappingFailure) -> String {
        let charset: Charset
        if let chosen = self.charset { charset = chosen } else { charset = try Self.charset(of: response) }
        guard let text = charset.decode(response.data) else { throw .invalidBytes(charset) }
        guard let keyPath else { return text }
        return try Self.string(at: keyPath, inJSON: text)
    }

    /// The byte-order mark's charset; else the `Content-Type`'s; else UTF-8.
    ///
    /// A byte-order mark wins over the header, as in the WHATWG Encoding
    /// standard: servers mislabel bodies far more often than a body starts
    /// with a mark by chance. ``Charset/decode(_:)`` drops the mark.
    static func charset(of response: Response) throws(StringMappingFailure) -> Charset {
        if let marked = Charset.sniffingByteOrderMark(in: response.data) { return marked }
        if let label = response.value(forHTTPHeaderField: "Content-Type").flatMap(Charset.label(inContentType:)) {
            guard let charset = Charset(label: label) else { throw .unsupportedCharset(label) }
            return charset
        }
        return .utf8
    }

    private static func string(at keyPath: String, inJSON text: String) throws(StringMappingFailure) -> String {
        guard let path = JSONKeyPath(keyPath) else { throw .invalidKeyPath(keyPath) }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            throw .invalidJSON(error.localizedDescription)
        }
        let value: Any
        do {
            value = try path.value(in: root)
        } catch {
            throw .notAString(path: error.path, found: error.found)
        }
        guard let string = value as? String else { throw .notAString(path: path.description, found: JSONKeyPath.describe(value)) }
        return string
    }
}
