import Foundation

extension Charset {
    /// Decodes `data` in this charset, dropping a byte-order mark.
    /// - Parameter data: A text body.
    /// - Returns: The text, or `nil` when `data` holds bytes this charset
    ///   does not allow.
    public func decode(_ data: Data) -> String? {
        switch self {
        case .utf8:
            let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
            return Self.decode(body, as: UTF8.self)
        case .utf16:
            if data.starts(with: [0xFF, 0xFE]) { return Self.decodeUTF16(data.dropFirst(2), bigEndian: false) }
            if data.starts(with: [0xFE, 0xFF]) { return Self.decodeUTF16(data.dropFirst(2), bigEndian: true) }
            return Self.decodeUTF16(data[...], bigEndian: true)
        case .utf16LittleEndian:
            return Self.decodeUTF16(data.starts(with: [0xFF, 0xFE]) ? data.dropFirst(2) : data[...], bigEndian: false)
        case .utf16BigEndian:
            return Self.decodeUTF16(data.starts(with: [0xFE, 0xFF]) ? data.dropFirst(2) : data[...], bigEndian: true)
        case .isoLatin1:
            return Self.decodeSingleByte(data) { Unicode.Scalar($0) }
        case .windows1252:
            return Self.decodeSingleByte(data) { byte in
                guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
                return Self.windows1252High[Int(byte - 0x80)]
            }
        case .usASCII:
            return Self.decodeSingleByte(data) { $0 < 0x80 ? Unicode.Scalar($0) : nil }
        }
    }

    // MARK: - Decoders

    private static func decode<Codec: UnicodeCodec>(_ units: some Sequence<Codec.CodeUnit>, as _: Codec.Type) -> String? {
        var iterator = units.makeIterator()
        var codec = Codec()
        var scalars = String.UnicodeScalarView()
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }

    private static func decodeUTF16(_ bytes: Data.SubSequence, bigEndian: Bool) -> String? {
        guard bytes.count.isMultiple(of: 2) else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return decode(units, as: UTF16.self)
    }

    private static func decodeSingleByte(_ data: Data, _ scalar: (UInt8) -> Unicode.Scalar?) -> String? {
        var scalars = String.UnicodeScalarView()
        for byte in data {
            guard let value = scalar(byte) else { return nil }
            scalars.append(value)
        }
        return String(scalars)
    }

    /// Windows-1252's 0x80–0x9F. The five bytes Microsoft leaves undefined
    /// (0x81, 0x8D, 0x8F, 0x90, 0x9D) map to the C1 control of the same
    /// value, as the WHATWG Encoding standard says, so no byte fails.
    private static let windows1252High: [Unicode.Scalar] = ([
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ] as [UInt32]).compactMap(Unicode.Scalar.init)
}
