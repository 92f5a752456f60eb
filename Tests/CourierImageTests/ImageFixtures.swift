import Foundation

/// Tiny images built byte by byte: each has a well-formed header for its
/// format and the given size.
enum ImageFixtures {
    static func png(width: UInt32, height: UInt32) -> Data {
        var ihdr = Data("IHDR".utf8)
        ihdr += be32(width) + be32(height) + Data([8, 2, 0, 0, 0])
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data += be32(13) + ihdr + be32(crc32(ihdr))
        data += be32(0) + Data("IEND".utf8) + be32(crc32(Data("IEND".utf8)))
        return data
    }

    static func gif(width: UInt16, height: UInt16) -> Data {
        Data("GIF89a".utf8) + le16(width) + le16(height) + Data([0x00, 0x00, 0x00]) + Data([0x3B])
    }

    /// A 40-byte info header; a negative height means top-down rows.
    static func bmp(width: Int32, height: Int32) -> Data {
        let rowBytes = (Int(width) * 3 + 3) / 4 * 4
        let pixels = Data(count: rowBytes * Int(abs(height)))
        var info = le32(40) + le32(UInt32(bitPattern: width)) + le32(UInt32(bitPattern: height))
        info += le16(1) + le16(24) + le32(0) + le32(UInt32(pixels.count)) + le32(2835) + le32(2835) + le32(0) + le32(0)
        return Data("BM".utf8) + le32(UInt32(14 + info.count + pixels.count)) + le32(0) + le32(UInt32(14 + info.count)) + info + pixels
    }

    /// SOI, a JFIF APP0, a DQT, fill bytes, then a baseline SOF0 and EOI.
    static func jpeg(width: UInt16, height: UInt16) -> Data {
        var data = Data([0xFF, 0xD8])
        data += Data([0xFF, 0xE0]) + be16(16) + Data("JFIF".utf8) + Data([0, 1, 1, 0]) + be16(1) + be16(1) + Data([0, 0])
        data += Data([0xFF, 0xDB]) + be16(67) + Data([0]) + Data(repeating: 1, count: 64)
        data += Data([0xFF, 0xFF, 0xC0]) + be16(17) + Data([8]) + be16(height) + be16(width) + Data([3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
        data += Data([0xFF, 0xD9])
        return data
    }

    /// A jpeg whose scan (SOS) comes before any frame header.
    static func jpegWithoutFrame() -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xDA]) + be16(8) + Data(repeating: 0, count: 6)
    }

    static func webpLossy(width: UInt16, height: UInt16) -> Data {
        riff(chunk: "VP8 ", payload: Data([0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A]) + le16(width) + le16(height) + Data(count: 8))
    }

    static func webpLossless(width: UInt32, height: UInt32) -> Data {
        riff(chunk: "VP8L", payload: Data([0x2F]) + le32((width - 1) | (height - 1) << 14) + Data(count: 4))
    }

    static func webpExtended(width: UInt32, height: UInt32) -> Data {
        riff(chunk: "VP8X", payload: Data([0x10, 0, 0, 0]) + le24(width - 1) + le24(height - 1))
    }

    static func riff(chunk: String, payload: Data) -> Data {
        let body = Data("WEBP".utf8) + Data(chunk.utf8) + le32(UInt32(payload.count)) + payload
        return Data("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    /// ftyp, then meta with a handler and item properties holding a small
    /// thumbnail `ispe` and the image's own, then an empty mdat.
    static func heic(width: UInt32, height: UInt32, brands: [String] = ["heic", "mif1", "heic"]) -> Data {
        let thumbnail = box("ispe", be32(0) + be32(160) + be32(120))
        let image = box("ispe", be32(0) + be32(width) + be32(height))
        return heic(properties: thumbnail + image, brands: brands)
    }

    /// ftyp, then meta whose item property container holds `properties`.
    static func heic(properties: Data, brands: [String] = ["heic", "mif1", "heic"]) -> Data {
        let ftyp = box("ftyp", Data(brands[0].utf8) + be32(0) + brands.dropFirst().reduce(Data()) { $0 + Data($1.utf8) })
        let iprp = box("iprp", box("ipco", properties))
        let hdlr = box("hdlr", be32(0) + be32(0) + Data("pict".utf8) + Data(count: 13))
        let meta = box("meta", be32(0) + hdlr + iprp)
        return ftyp + meta + box("mdat", Data(count: 16))
    }

    static func box(_ type: String, _ content: Data) -> Data {
        be32(UInt32(8 + content.count)) + Data(type.utf8) + content
    }

    // MARK: - Bytes

    static func be16(_ value: UInt16) -> Data { Data([UInt8(value >> 8), UInt8(value & 0xFF)]) }
    static func be32(_ value: UInt32) -> Data { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }
    static func le16(_ value: UInt16) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8)]) }
    static func le24(_ value: UInt32) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]) }
    static func le32(_ value: UInt32) -> Data { le16(UInt16(value & 0xFFFF)) + le16(UInt16(value >> 16)) }

    /// PNG's CRC-32 (IEEE), bit by bit.
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
