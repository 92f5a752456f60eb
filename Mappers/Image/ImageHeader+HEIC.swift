extension ImageHeader {
    /// Brands that say a HEIF file holds HEVC-coded images.
    private static let heicBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]

    /// Whether the `ftyp` box's major or compatible brands name HEIC.
    static func isHEIC(_ reader: ByteReader) throws(ImageMappingFailure) -> Bool {
        let size = try reader.uint32BE(at: 0)
        let end = min(size, reader.count)
        var brands = [try reader.fourCC(at: 8)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(try reader.fourCC(at: offset))
            offset += 4
        }
        return brands.contains(where: heicBrands.contains)
    }

    /// The size is in `ispe` properties at meta → iprp → ipco. A file may
    /// hold several (thumbnails, grid tiles); the largest is the image's.
    static func heicSize(_ reader: ByteReader) throws(ImageMappingFailure) -> (Int, Int) {
        guard let meta = try box("meta", in: 0..<Int.max, reader) else {
            throw .malformed(.heic, "it has no item properties (meta/iprp/ipco)")
        }
        // meta is a full box: its version and flags come before its children.
        guard meta.count >= 4 else {
            throw .malformed(.heic, "its “meta” box holds \(meta.count) bytes, too few for its version and flags")
        }
        guard let properties = try box("iprp", in: meta.lowerBound + 4..<meta.upperBound, reader),
              let container = try box("ipco", in: properties, reader)
        else { throw .malformed(.heic, "it has no item properties (meta/iprp/ipco)") }
        var sizes: [(Int, Int)] = []
        try forEachBox(in: container, reader) { type, content throws(ImageMappingFailure) in
            guard type == "ispe" else { return false }
            // Version and flags, then width and height: 12 bytes at least.
            guard content.count >= 12 else {
                throw .malformed(.heic, "an “ispe” box holds \(content.count) bytes, too few for a width and height")
            }
            sizes.append((try reader.uint32BE(at: content.lowerBound + 4), try reader.uint32BE(at: content.lowerBound + 8)))
            return false
        }
        // Two 32-bit sides multiply past Int64 only in UInt64's range.
        guard let largest = sizes.max(by: { UInt64($0.0) * UInt64($0.1) < UInt64($1.0) * UInt64($1.1) }) else {
            throw .malformed(.heic, "it has no image size property (ispe)")
        }
        return largest
    }

    // MARK: - Boxes

    /// The content range of the first box of `type` in `range`.
    private static func box(_ type: String, in range: Range<Int>, _ reader: ByteReader) throws(ImageMappingFailure) -> Range<Int>? {
        var found: Range<Int>?
        try forEachBox(in: range, reader) { boxType, content throws(ImageMappingFailure) in
            guard boxType == type else { return false }
            try reader.require(content.lowerBound, content.count)
            found = content
            return true
        }
        return found
    }

    /// Calls `body` with each box's type and content range until it returns
    /// `true`; a box that runs past the body is a truncated file.
    private static func forEachBox(
        in range: Range<Int>, _ reader: ByteReader,
        _ body: (String, Range<Int>) throws(ImageMappingFailure) -> Bool
    ) throws(ImageMappingFailure) {
        let limit = min(range.upperBound, reader.count)
        var offset = range.lowerBound
        while offset < limit {
            var size = try reader.uint32BE(at: offset)
            let type = try reader.fourCC(at: offset + 4)
            var header = 8
            if size == 1 {
                size = try reader.uint64BE(at: offset + 8)
                header = 16
            } else if size == 0 {
                size = limit - offset
            }
            guard size >= header else { throw .malformed(.heic, "the “\(type)” box at byte \(offset) is \(size) bytes long") }
            if try body(type, offset + header..<offset + size) { return }
            offset += size
        }
        if range.upperBound != Int.max, offset > range.upperBound {
            throw .malformed(.heic, "a box runs past the end of its parent")
        }
        if range.upperBound == Int.max || range.upperBound > reader.count {
            throw .truncated(.heic, needed: max(offset, range.upperBound == Int.max ? offset + 8 : range.upperBound), available: reader.count)
        }
    }
}
