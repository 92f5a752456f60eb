import CZlibBench
import CourierGzip
import Foundation

/// Item 4: gzip compress and decompress of 10 MB of JSON, CourierGzip's
/// `Gzip` against zlib called directly (same level, same gzip wrapper).
struct GzipBenchmark {
    let quick: Bool

    enum Failure: Error { case zlib(String, Int32) }

    func run() throws -> [Row] {
        let json = Self.json(bytes: 10 * 1024 * 1024)
        let compressed = try Gzip.compress(json)
        guard try Self.zlibInflate(Self.zlibDeflate(json)) == json,
              try Gzip.decompress(compressed, limit: json.count * 2) == json
        else { throw Failure.zlib("round trip differs", 0) }
        let megabytes = Double(json.count) / 1_048_576
        let rounds = quick ? 3 : 7
        let compress = try interleavedSeconds(rounds: rounds,
                                           courier: { _ = try Gzip.compress(json) },
                                           bare: { _ = try Self.zlibDeflate(json) })
        let decompress = try interleavedSeconds(rounds: rounds,
                                             courier: { _ = try Gzip.decompress(compressed, limit: json.count * 2) },
                                             bare: { _ = try Self.zlibInflate(compressed) })
        return [
            Row(name: "gzip compress 10 MB JSON", unit: "MB/s", courier: megabytes / compress.courier,
                bare: megabytes / compress.bare, bareAgain: megabytes / compress.bareAgain, higherIsBetter: true),
            Row(name: "gzip compress 10 MB JSON, allocations per call", unit: "allocs",
                courier: try allocations { _ = try Gzip.compress(json) },
                bare: try allocations { _ = try Self.zlibDeflate(json) }, higherIsBetter: false),
            Row(name: "gzip decompress 10 MB JSON", unit: "MB/s", courier: megabytes / decompress.courier,
                bare: megabytes / decompress.bare, bareAgain: megabytes / decompress.bareAgain, higherIsBetter: true),
            Row(name: "gzip decompress 10 MB JSON, allocations per call", unit: "allocs",
                courier: try allocations { _ = try Gzip.decompress(compressed, limit: json.count * 2) },
                bare: try allocations { _ = try Self.zlibInflate(compressed) }, higherIsBetter: false),
        ]
    }

    // MARK: - Input

    /// Realistic, varied JSON records until `bytes` is reached.
    static func json(bytes: Int) -> Data {
        var text = "["
        var index = 0
        while text.utf8.count < bytes - 200 {
            if index > 0 { text += "," }
            text += #"{"id":\#(index),"name":"user-\#(index % 977)","score":\#(Double(index) * 0.37),"#
            text += #""active":\#(index % 3 == 0),"tags":["t\#(index % 13)","g\#(index % 7)"]}"#
            index += 1
        }
        text += "]"
        return Data(text.utf8)
    }

    // MARK: - zlib, directly

    static func zlibDeflate(_ input: Data) throws -> Data {
        var stream = z_stream()
        let status = deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Failure.zlib("deflateInit2", status) }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, UInt(input.count))))
        let written: Int = try input.withUnsafeBytes { source in
            try output.withUnsafeMutableBytes { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(target.count)
                let result = deflate(&stream, Z_FINISH)
                guard result == Z_STREAM_END else { throw Failure.zlib("deflate", result) }
                return target.count - Int(stream.avail_out)
            }
        }
        output.count = written
        return output
    }

    /// Inflates in 256 KiB chunks appended to the result, as streaming code does.
    static func zlibInflate(_ input: Data) throws -> Data {
        var stream = z_stream()
        let status = inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Failure.zlib("inflateInit2", status) }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        try input.withUnsafeBytes { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            var result = Z_OK
            while result != Z_STREAM_END {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    return buffer.count - Int(stream.avail_out)
                }
                guard result == Z_OK || result == Z_STREAM_END else { throw Failure.zlib("inflate", result) }
                output.append(contentsOf: chunk[0..<produced])
            }
        }
        return output
    }
}
