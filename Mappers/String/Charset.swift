import Foundation

/// A character encoding a text body may use, read from the `charset`
/// parameter of its `Content-Type`.
public enum Charset: String, Sendable, CaseIterable, CustomStringConvertible {
    /// UTF-8; a leading byte-order mark is dropped.
    case utf8 = "utf-8"
    /// UTF-16 with a byte-order mark saying its byte order; big-endian
    /// without one (RFC 2781).
    case utf16 = "utf-16"
    /// UTF-16, little-endian.
    case utf16LittleEndian = "utf-16le"
    /// UTF-16, big-endian.
    case utf16BigEndian = "utf-16be"
    /// ISO-8859-1 (Latin-1): each byte is the code point of the same value.
    case isoLatin1 = "iso-8859-1"
    /// Windows-1252: Latin-1 with printable characters (€, “, ”, …) in
    /// 0x80–0x9F.
    case windows1252 = "windows-1252"
    /// US-ASCII: bytes 0x00–0x7F only.
    case usASCII = "us-ascii"

    /// The charset's canonical name, as in `Content-Type`.
    public var description: String { rawValue }

    /// Finds the charset a label names, ignoring case and the usual aliases
    /// (`utf8`, `latin1`, `cp1252`, `ascii`).
    /// - Parameter label: A charset name, as in a `Content-Type`.
    /// - Returns: The charset, or `nil` for one Courier does not read.
    public init?(label: String) {
        let name = label.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")).lowercased()
        switch name {
        case "utf-8", "utf8", "unicode-1-1-utf-8": self = .utf8
        case "utf-16", "utf16", "unicode": self = .utf16
        case "utf-16le", "unicodefffe": self = .utf16LittleEndian
        case "utf-16be": self = .utf16BigEndian
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "cp819", "iso-ir-100": self = .isoLatin1
        case "windows-1252", "cp1252", "x-cp1252": self = .windows1252
        case "us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us": self = .usASCII
        default: return nil
        }
    }

    /// The `charset` parameter of a `Content-Type` value, as written.
    /// - Parameter contentType: A value such as `text/plain; charset="UTF-8"`.
    /// - Returns: The label, or `nil` when there is none.
    public static func label(inContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            return parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        return nil
    }

    /// The charset a byte-order mark at the start of `data` announces.
    /// - Parameter data: A body.
    /// - Returns: `utf8` or `utf16` when `data` starts with their mark.
    public static func sniffingByteOrderMark(in data: Data) -> Charset? {
        let bytes = Array(data.prefix(3))
        if bytes == [0xEF, 0xBB, 0xBF] { return .utf8 }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return .utf16 }
        return nil
    }
}
