extension ImageHeader {
    /// Walks the marker segments after SOI to the first start-of-frame
    /// (SOF0–SOF15 except DHT, JPG and DAC), which holds height then width.
    static func jpegSize(_ reader: ByteReader) throws(ImageMappingFailure) -> (Int, Int) {
        var offset = 2
        while true {
            guard try reader.byte(at: offset) == 0xFF else {
                throw .malformed(.jpeg, "expected a marker at byte \(offset)")
            }
            // Any number of 0xFF fill bytes may precede a marker.
            var markerOffset = offset + 1
            while try reader.byte(at: markerOffset) == 0xFF { markerOffset += 1 }
            let marker = try reader.byte(at: markerOffset)
            offset = markerOffset + 1
            switch marker {
            case 0x01, 0xD0...0xD8:
                continue
            case 0xD9, 0xDA:
                throw .malformed(.jpeg, "the image data starts before any frame header (SOF)")
            case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):
                return (try reader.uint16BE(at: offset + 5), try reader.uint16BE(at: offset + 3))
            default:
                let length = try reader.uint16BE(at: offset)
                guard length >= 2 else { throw .malformed(.jpeg, "a segment at byte \(offset) claims \(length) bytes") }
                offset += length
            }
        }
    }
}
