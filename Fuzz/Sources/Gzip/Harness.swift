import CourierGzip
import Foundation

/// gzip and deflate streams, whole and fed in pieces, under a small limit: a
/// bomb is an error, never a crash or an allocation past the limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let limit = 1 << 20
    for format in [Gzip.Format?.none, .gzip, .zlib, .rawDeflate] {
        let decompressor = GzipDecompressor(format: format, limit: limit)
        var produced = 0
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = data.index(offset, offsetBy: 7, limitedBy: data.endIndex) ?? data.endIndex
            guard let output = try? decompressor.decompress(data[offset..<end]) else { break }
            produced += output.count
            precondition(produced <= limit, "\(produced) bytes past a limit of \(limit)")
            offset = end
        }
    }
    return 0
}
