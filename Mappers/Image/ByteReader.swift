import Foundation

/// Bounds-checked big- and little-endian reads from a body, each failing as
/// a truncated image rather than trapping.
struct ByteReader {
    let data: Data
    let format: ImageFormat

    var count: Int { data.count }

    func byte(at offset: Int) throws(ImageMappingFailure) -> UInt8 {
        try require(offset, 1)
        return data[data.startIndex + offset]
    }

    func uint16BE(at offset: Int) throws(ImageMappingFailure) -> Int {
        try require(offset, 2)
        return try Int(byte(at: offset)) << 8 | Int(byte(at: offset + 1))
    }

    func uint16LE(at offset: Int) throws(ImageMappingFailure) -> Int {
        try require(offset, 2)
        return try Int(byte(at: offset + 1)) << 8 | Int(byte(at: offset))
    }

    func uint24LE(at offset: Int) throws(ImageMappingFailure) -> Int {
        try require(offset, 3)
        return try uint16LE(at: offset) | Int(byte(at: offset + 2)) << 16
    }

    func uint32BE(at offset: Int) throws(ImageMappingFailure) -> Int {
        try require(offset, 4)
        return try uint16BE(at: offset) << 16 | uint16BE(at: offset + 2)
    }

    func uint32LE(at offset: Int) throws(ImageMappingFailure) -> Int {
        try require(offset, 4)
        return try uint16LE(at: offset + 2) << 16 | uint16LE(at: offset)
    }

    func uint64BE(at offset: Int) throws(ImageMappingFailure) -> Int {
        try require(offset, 8)
        let high = try uint32BE(at: offset), low = try uint32BE(at: offset + 4)
        guard high < 1 << 30 else { throw .malformed(format, "a box is larger than any file") }
        return high << 32 | low
    }

    /// Four bytes as ASCII, such as a chunk or box type.
    func fourCC(at offset: Int) throws(ImageMappingFailure) -> String {
        try require(offset, 4)
        let start = data.startIndex + offset
        return String(decoding: data[start..<start + 4], as: UTF8.self)
    }

    /// Throws `truncated` unless `length` bytes exist from `offset`.
    func require(_ offset: Int, _ length: Int) throws(ImageMappingFailure) {
        guard offset >= 0, length >= 0, offset <= data.count - length else {
            throw .truncated(format, needed: offset + length, available: data.count)
        }
    }
}
