import CourierGzip
import Foundation

/// gzip and deflate streams, whole and fed in pieces, under a small limit: a
/// bomb is an error, never a crash or an allocation past the limit; and the
/// one-shot call, which has zlib write straight into its result, gives the
/// same bytes or the same error as the streaming decompressor fed the whole
/// input.
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

        let whole = Result { () throws(Gzip.Error) in try Gzip.decompress(data, format: format, limit: limit) }
        let streamed = Result { () throws(Gzip.Error) in
            let decompressor = GzipDecompressor(format: format, limit: limit)
            let output = try decompressor.decompress(data)
            try decompressor.finish()
            return output
        }
        if case .success(let output) = whole {
            precondition(output.count <= limit, "\(output.count) bytes past a limit of \(limit)")
        }
        precondition(whole == streamed, "one shot \(whole) but streamed \(streamed)")
    }
    return 0
}
