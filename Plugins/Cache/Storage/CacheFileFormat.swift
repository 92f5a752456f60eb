import Courier
import Foundation

/// The bytes of one ``DiskResponseCache`` file, version 1:
///
/// ```
/// magic        8 bytes   0x89 "CRCACHE"
/// version      2 bytes   big-endian, 1
/// meta length  4 bytes   big-endian
/// meta         JSON      key, status, URL, headers, stored-at, expires-at,
///                        ETag, Last-Modified, Vary value digests
/// body length  8 bytes   big-endian
/// body         bytes
/// checksum     8 bytes   FNV-1a 64 of everything before it
/// ```
///
/// Any deviation (another magic, another version, a length that does not add
/// up, a checksum that does not match, JSON that does not decode) makes
/// `decode(_:)` return `nil`: a foreign, truncated or corrupt file is a miss.
enum CacheFileFormat {
    static let magic: [UInt8] = [0x89, 0x43, 0x52, 0x43, 0x41, 0x43, 0x48, 0x45]
    static let version: UInt16 = 1

    private struct Metadata: Codable {
        var key: String
        var status: Int
        var url: String?
        var headers: [String: String]
        // Seconds since the reference date: `Date`'s own representation, so
        // the round trip is exact.
        var storedAt: Double
        var expiresAt: Double?
        var etag: String?
        var lastModified: String?
        var vary: [String: String]
    }

    // MARK: - Writing

    static func encode(_ entry: CachedResponse) -> Data? {
        let metadata = Metadata(
            key: entry.key, status: entry.statusCode, url: entry.url?.absoluteString, headers: entry.headers,
            storedAt: entry.storedAt.timeIntervalSinceReferenceDate,
            expiresAt: entry.expiresAt?.timeIntervalSinceReferenceDate,
            etag: entry.etag, lastModified: entry.lastModified, vary: entry.varyValues
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let meta = try? encoder.encode(metadata), meta.count <= Int(UInt32.max) else { return nil }
        var data = Data(capacity: magic.count + 22 + meta.count + entry.body.count)
        data.append(contentsOf: magic)
        append(UInt64(version), bytes: 2, to: &data)
        append(UInt64(meta.count), bytes: 4, to: &data)
        data.append(meta)
        append(UInt64(entry.body.count), bytes: 8, to: &data)
        data.append(entry.body)
        append(fnv1a64(data[...]), bytes: 8, to: &data)
        return data
    }

    // MARK: - Reading

    static func decode(_ data: Data) -> CachedResponse? {
        var reader = Reader(data: data)
        guard let head = reader.read(magic.count), Array(head) == magic,
              reader.integer(bytes: 2) == UInt64(version),
              let metaLength = reader.integer(bytes: 4), let meta = reader.read(Int(metaLength)),
              let bodyLength = reader.integer(bytes: 8), bodyLength <= UInt64(data.count),
              let body = reader.read(Int(bodyLength)) else { return nil }
        let checked = reader.offset
        guard let checksum = reader.integer(bytes: 8), reader.isAtEnd,
              checksum == fnv1a64(data[data.startIndex..<data.startIndex + checked]),
              let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(meta)) else { return nil }
        var entry = CachedResponse(
            key: metadata.key, statusCode: metadata.status, headers: metadata.headers, body: Data(body),
            url: metadata.url.flatMap(URL.init(string:)),
            storedAt: Date(timeIntervalSinceReferenceDate: metadata.storedAt),
            expiresAt: metadata.expiresAt.map(Date.init(timeIntervalSinceReferenceDate:)),
            varyValues: metadata.vary
        )
        entry.etag = metadata.etag
        entry.lastModified = metadata.lastModified
        return entry
    }

    // MARK: - Helpers

    private static func append(_ value: UInt64, bytes: Int, to data: inout Data) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    static func fnv1a64(_ bytes: Data.SubSequence) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private struct Reader {
        let data: Data
        var offset = 0

        var isAtEnd: Bool { offset == data.count }

        mutating func read(_ count: Int) -> Data.SubSequence? {
            guard count >= 0, data.count - offset >= count else { return nil }
            let start = data.startIndex + offset
            offset += count
            return data[start..<start + count]
        }

        mutating func integer(bytes: Int) -> UInt64? {
            guard let slice = read(bytes) else { return nil }
            return slice.reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}
