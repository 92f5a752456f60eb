#if !XML
#error("CourierXML needs the package trait \"XML\": add it to the traits of your Courier dependency.")
#endif

import Courier
import Foundation

extension XMLLimits {
    /// Reads the markup of `data` (tags, comments, CDATA, processing
    /// instructions, the document type) without parsing the rest, and throws
    /// at the first limit passed. Malformed markup ends the check quietly:
    /// the parser reports it next.
    /// - Throws: `MappingLimitExceeded` naming the limit.
    func check(_ data: Data) throws(MappingLimitExceeded) {
        try checkMarkup(Self.utf8Text(of: data))
    }

    /// The body as bytes in which markup reads as ASCII: UTF-16 is
    /// transcoded; an encoding in which `<` may be written otherwise (UTF-7,
    /// UTF-32, EBCDIC) is refused, as the check could not see its markup.
    private static func utf8Text(of data: Data) throws(MappingLimitExceeded) -> Data {
        let head = Array(data.prefix(4))
        let utf16: String.Encoding? = switch (head.first, head.dropFirst().first) {
        case (0xFE, 0xFF): .utf16
        case (0xFF, 0xFE) where head.count < 4 || head[2] != 0 || head[3] != 0: .utf16
        case (0x00, UInt8(ascii: "<")) where head.count < 3 || head[2] == 0x00: .utf16BigEndian
        case (UInt8(ascii: "<"), 0x00) where head.count < 4 || head[3] == 0x00: .utf16LittleEndian
        default: nil
        }
        if let utf16 {
            guard let text = String(data: data, encoding: utf16) else { throw unreadable("is not valid UTF-16") }
            return Data(text.utf8)
        }
        if head.first == 0x00 || head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || head.starts(with: [0x4C, 0x6F, 0xA7, 0x94]) {
            throw unreadable("is encoded in UTF-32 or EBCDIC")
        }
        let declared = declaredEncoding(in: data)
        if let declared, !asciiCompatible(declared) {
            throw unreadable("declares the encoding \(declared)")
        }
        // libxml2 hands a name with bytes that are not UTF-8 on to
        // FoundationXML, which traps on it: the process would die.
        if declared.map(isUTF8) ?? true, !isValidUTF8(data) {
            throw unreadable("is not valid UTF-8")
        }
        return data
    }

    private static func isUTF8(_ encoding: String) -> Bool {
        ["utf-8", "utf8", "us-ascii", "ascii"].contains(encoding.lowercased())
    }

    private static func isValidUTF8(_ data: Data) -> Bool {
        let failed = transcode(data.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        return !failed
    }

    /// The `encoding` of an XML declaration (`<?xml … encoding="…"?>`).
    private static func declaredEncoding(in data: Data) -> String? {
        guard data.starts(with: Array("<?xml".utf8)), let end = data.firstRange(of: Array("?>".utf8)) else { return nil }
        let declaration = String(decoding: data[..<end.lowerBound], as: UTF8.self)
        guard let name = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[name.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }

    private static func asciiCompatible(_ encoding: String) -> Bool {
        let name = encoding.lowercased()
        return ["utf-8", "utf8", "us-ascii", "ascii", "latin1"].contains(name)
            || name.hasPrefix("iso-8859-") || name.hasPrefix("windows-125")
    }

    private static func unreadable(_ reason: String) -> MappingLimitExceeded {
        MappingLimitExceeded(
            limit: "XMLLimits", maximum: 0, reason: reason,
            remedy: "Courier checks XML in UTF-8, UTF-16 and ASCII-compatible encodings only; ask the server for UTF-8"
        )
    }

    private func checkMarkup(_ data: Data) throws(MappingLimitExceeded) {
        let exceeded = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> MappingLimitExceeded? in
            do throws(MappingLimitExceeded) {
                try checkMarkup(raw.bindMemory(to: UInt8.self))
                return nil
            } catch {
                return error
            }
        }
        if let exceeded { throw exceeded }
    }

    private func checkMarkup(_ bytes: UnsafeBufferPointer<UInt8>) throws(MappingLimitExceeded) {
        // Anywhere, not only where this reading sees markup: libxml2 goes on
        // past a malformed tag, and reaches instructions this reading would
        // take for part of that tag, a comment or a value.
        var instruction = 0
        while let open = Self.find("<?", in: bytes, from: instruction) {
            try Self.checkInstruction(in: bytes, at: open + 1)
            instruction = open + 2
        }
        var depth = 0
        var index = 0
        while let open = Self.find(UInt8(ascii: "<"), in: bytes, from: index) {
            index = open + 1
            guard index < bytes.count else { return }
            switch bytes[index] {
            case UInt8(ascii: "/"):
                depth -= 1
                guard let end = Self.find(UInt8(ascii: ">"), in: bytes, from: index) else { return }
                index = end + 1
            case UInt8(ascii: "?"):
                guard let end = Self.find("?>", in: bytes, from: index) else { return }
                index = end + 2
            case UInt8(ascii: "!"):
                if Self.starts("!--", in: bytes, at: index) {
                    guard let end = Self.find("-->", in: bytes, from: index + 3) else { return }
                    index = end + 3
                } else if Self.starts("![CDATA[", in: bytes, at: index) {
                    guard let end = Self.find("]]>", in: bytes, from: index + 8) else { return }
                    index = end + 3
                } else {
                    guard let end = try checkDeclaration(in: bytes, from: index) else { return }
                    index = end + 1
                }
            default:
                guard let end = Self.tagEnd(in: bytes, from: index) else { return }
                if depth + 1 > maximumDepth {
                    throw MappingLimitExceeded(
                        limit: "XMLLimits.maximumDepth", maximum: maximumDepth,
                        reason: "nests elements deeper than \(maximumDepth) levels"
                    )
                }
                if bytes[end - 1] != UInt8(ascii: "/") { depth += 1 }
                index = end + 1
            }
        }
    }

    /// Checks a `<!…>` declaration outside the document type's internal
    /// subset (in practice `<!DOCTYPE`), and returns where its `>` is.
    private func checkDeclaration(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(MappingLimitExceeded) -> Int? {
        guard let end = Self.declarationEnd(in: bytes, from: start) else { return nil }
        if Self.find("<!ENTITY", in: UnsafeBufferPointer(rebasing: bytes[start..<end]), from: 0) != nil
            || Self.starts("!ENTITY", in: bytes, at: start) {
            throw MappingLimitExceeded(
                limit: "XMLLimits.allowsDocumentType", maximum: 0,
                reason: "declares an entity (<!ENTITY>), which can expand without bound or read a file",
                remedy: "entities are never expanded; ask the server for XML without a document type"
            )
        }
        if !allowsDocumentType {
            throw MappingLimitExceeded(
                limit: "XMLLimits.allowsDocumentType", maximum: 0,
                reason: "declares a document type (<!DOCTYPE>)",
                remedy: "set XMLLimits.allowsDocumentType to accept a document type without entities"
            )
        }
        return end
    }

    /// Refuses a processing instruction without data (`<?name?>`), `index`
    /// at its `?`: libxml2 reports its data as a null pointer, and
    /// FoundationXML reads that pointer as a string and crashes the process.
    private static func checkInstruction(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) throws(MappingLimitExceeded) {
        var end = index + 1
        while end < bytes.count, !isSpace(bytes[end]), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: ">") {
            end += 1
        }
        guard starts("?>", in: bytes, at: end) else { return }
        throw unreadable("holds a processing instruction without data (<?name?>), which crashes FoundationXML's parser")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    // MARK: - Bytes

    /// The `>` that ends a start tag, past quoted attribute values.
    private static func tagEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var quote: UInt8?
        for index in start..<bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return index
            }
        }
        return nil
    }

    /// The `>` that ends a declaration, past quoted literals and an internal
    /// subset in brackets.
    private static func declarationEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var quote: UInt8?
        var brackets = 0
        for index in start..<bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "["): brackets += 1
            case UInt8(ascii: "]"): brackets -= 1
            case UInt8(ascii: ">") where brackets <= 0: return index
            default: break
            }
        }
        return nil
    }

    private static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes[start...].firstIndex(of: byte)
    }

    private static func find(_ text: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while let candidate = find(text.utf8Start.pointee, in: bytes, from: index) {
            if starts(text, in: bytes, at: candidate) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    private static func starts(_ text: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[start + offset] != text.utf8Start[offset] {
            return false
        }
        return true
    }
}
