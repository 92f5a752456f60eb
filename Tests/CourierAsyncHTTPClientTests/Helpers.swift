import Courier
import CourierTestSupport
import Foundation
import Testing

/// A temporary directory removed when the test is done with it.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-ahc-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A gzip member holding `data` in stored (uncompressed) deflate blocks: real
/// gzip that any decoder accepts, built without zlib.
enum StoredGzip {
    static func make(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        var offset = 0
        repeat {
            let size = min(65_535, data.count - offset)
            out.append(offset + size >= data.count ? 1 : 0)
            out.append(contentsOf: [UInt8(size & 0xFF), UInt8(size >> 8), UInt8(~size & 0xFF), UInt8((~size >> 8) & 0xFF)])
            out.append(data.subdata(in: offset..<offset + size))
            offset += size
        } while offset < data.count
        for value in [crc32(data), UInt32(truncatingIfNeeded: data.count)] {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
        }
        return out
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

/// Sends `target` and returns the `NetworkError` it failed with, recording an
/// issue when it succeeded.
func failure(of target: TestTarget, on provider: Provider<TestTarget>) async -> NetworkError? {
    do {
        let response = try await provider.request(target)
        Issue.record("expected a failure, got status \(response.statusCode)")
        return nil
    } catch {
        return error
    }
}

/// Progress reports of one direction, in the order they arrived.
func reports(_ all: [TransferProgress], _ direction: TransferProgress.Direction) -> [TransferProgress] {
    all.filter { $0.direction == direction }
}
