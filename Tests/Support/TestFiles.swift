import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A temporary directory removed when the test is done with it.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A gzip member holding `data` in stored (uncompressed) deflate blocks: real
/// gzip that any decoder accepts, built without zlib.
public enum StoredGzip {
    public static func make(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        var offset = 0
        repeat {
            let size = min(65_535, data.count - offset)
            let isLast = offset + size >= data.count
            out.append(isLast ? 1 : 0)
            out.append(UInt8(size & 0xFF)); out.append(UInt8(size >> 8))
            out.append(UInt8(~size & 0xFF)); out.append(UInt8((~size >> 8) & 0xFF))
            out.append(data.subdata(in: offset..<offset + size))
            offset += size
        } while offset < data.count
        appendLittleEndian(crc32(data), to: &out)
        appendLittleEndian(UInt32(truncatingIfNeeded: data.count), to: &out)
        return out
    }

    private static func appendLittleEndian(_ value: UInt32, to data: inout Data) {
        for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}


/// Runs `body` with the URL of a port on 127.0.0.1 that refuses connections:
/// the port is bound but never listened on, so no server started meanwhile
/// (by this test or one running beside it) can take it over.
public func withRefusingPort<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
        }
    }
    guard bound, let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))") else {
        throw POSIXError(.EADDRNOTAVAIL)
    }
    return try await body(url)
}
