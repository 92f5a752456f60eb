import Courier
import Foundation

/// The bytes of one ``DiskResponseCache`` file, version 3: one read, no
/// parsing beyond lengths.
///
/// ```
/// magic          8 bytes   0x89 "CRCACHE"
/// version        2 bytes   3
/// meta length    4 bytes
/// meta:
///   key          string    "sha256:" and the key's digest
///   status       4 bytes
///   stored at    8 bytes   the bits of a Double, seconds since 2001
///   expires at   optional  8 bytes
///   URL          optional  string
///   ETag         optional  string
///   Last-Modified optional string
///   headers      4-byte count, then name and value strings
///   vary         4-byte count, then name and digest strings
/// body length    8 bytes
/// body           bytes
/// checksum       8 bytes   FNV-1a 64 over the little-endian 64-bit words of
///                          everything before it, then its last bytes, with
///                          the high half folded in after every step
/// ```
///
/// Integers are big-endian; a string is a 4-byte length and UTF-8; an
/// optional is a byte (0 absent, 1 present) and the value. Any deviation
/// (another magic or version, a length that does not add up, bytes left over
/// in the metadata, invalid UTF-8, a checksum that does not match) makes
/// `decode(_:)` return `nil`: a foreign, truncated, corrupt or older file is a
/// miss, so a file an older version wrote is read again from the server.
enum CacheFileFormat {
    static let magic: [UInt8] = [0x89, 0x43, 0x52, 0x43, 0x41, 0x43, 0x48, 0x45]
    static let version: UInt16 = 3

    // MARK: - Writing

    static func encode(_ entry: CachedResponse) -> Data? {
        var meta = Writer()
        meta.string(entry.key)
        guard let status = UInt32(exactly: entry.statusCode) else { return nil }
        meta.integer(UInt64(status), bytes: 4)
        meta.integer(entry.storedAt.timeIntervalSinceReferenceDate.bitPattern, bytes: 8)
        meta.optional(entry.expiresAt) { $0.integer($1.timeIntervalSinceReferenceDate.bitPattern, bytes: 8) }
        meta.optional(entry.url) { $0.string($1.absoluteString) }
        meta.optional(entry.etag) { $0.string($1) }
        meta.optional(entry.lastModified) { $0.string($1) }
        meta.fields(entry.headers)
        meta.fields(entry.varyValues)
        guard meta.data.count <= Int(UInt32.max), meta.isValid else { return nil }

        var data = Data(capacity: magic.count + 22 + meta.data.count + entry.body.count)
        data.append(contentsOf: magic)
        Writer.append(UInt64(version), bytes: 2, to: &data)
        Writer.append(UInt64(meta.data.count), bytes: 4, to: &data)
        data.append(meta.data)
        Writer.append(UInt64(entry.body.count), bytes: 8, to: &data)
        data.append(entry.body)
        Writer.append(checksum(data), bytes: 8, to: &data)
        return data
    }

    // MARK: - Reading

    static func decode(_ data: Data) -> CachedResponse? {
        data.withUnsafeBytes { decode($0) }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) -> CachedResponse? {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= magic.count + 22, reader.read(magic.count)?.elementsEqual(magic) == true,
              reader.integer(bytes: 2) == UInt64(version),
              let metaLength = reader.integer(bytes: 4), let meta = reader.read(metaLength),
              let bodyLength = reader.integer(bytes: 8), let body = reader.read(bodyLength) else { return nil }
        let checked = reader.offset
        guard let checksum = reader.integer(bytes: 8), reader.isAtEnd,
              checksum == Self.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<checked])) else { return nil }

        var fields = Reader(bytes: meta)
        guard let key = fields.string(),
              let status = fields.integer(bytes: 4).flatMap({ Int(exactly: $0) }),
              let storedAt = fields.integer(bytes: 8),
              let expiresAt = fields.optional({ $0.integer(bytes: 8) }),
              let url = fields.optional({ $0.string() }),
              let etag = fields.optional({ $0.string() }),
              let lastModified = fields.optional({ $0.string() }),
              let headers = fields.fields(),
              let vary = fields.fields(),
              fields.isAtEnd
        else { return nil }
        return CachedResponse(
            key: key, statusCode: status, headers: headers, body: Data(body),
            url: url.flatMap { URL(string: $0) },
            storedAt: Date(timeIntervalSinceReferenceDate: Double(bitPattern: storedAt)),
            expiresAt: expiresAt.map { Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0)) },
            etag: etag, lastModified: lastModified, varyValues: vary
        )
    }

    // MARK: - Checksum

    static func checksum(_ data: Data) -> UInt64 {
        data.withUnsafeBytes { checksum($0) }
    }

    /// FNV-1a 64 taking eight bytes a step (a little-endian word), then the
    /// last bytes one at a time, each step followed by folding the high half
    /// into the low (`hash ^= hash >> 32`): a multiplication carries a change
    /// only upwards, so without the fold two flipped top bits in different
    /// words could cancel. Every step maps the running hash one-to-one, so any
    /// single damaged word changes the result. It finds damage; it does not
    /// resist forgery (the stored key's digest says whose file it is).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))) &* prime
            hash ^= hash &>> 32
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* prime
            hash ^= hash &>> 32
            offset += 1
        }
        return hash
    }

    // MARK: - Writer and reader

    private struct Writer {
        var data = Data()
        /// False once a value could not be written (a string or a count too
        /// long for its 4-byte length).
        var isValid = true

        static func append(_ value: UInt64, bytes: Int, to data: inout Data) {
            for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
                data.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }

        mutating func integer(_ value: UInt64, bytes: Int) {
            Self.append(value, bytes: bytes, to: &data)
        }

        mutating func string(_ value: String) {
            let utf8 = Array(value.utf8)
            guard let length = UInt32(exactly: utf8.count) else {
                isValid = false
                return
            }
            integer(UInt64(length), bytes: 4)
            data.append(contentsOf: utf8)
        }

        mutating func optional<Value>(_ value: Value?, _ write: (inout Writer, Value) -> Void) {
            guard let value else {
                data.append(0)
                return
            }
            data.append(1)
            write(&self, value)
        }

        mutating func fields(_ fields: [String: String]) {
            guard let count = UInt32(exactly: fields.count) else {
                isValid = false
                return
            }
            integer(UInt64(count), bytes: 4)
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                string(name)
                string(value)
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func read(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count >= 0, bytes.count - offset >= count else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        /// A length read from the file: one that does not fit an `Int` (a
        /// 32-bit platform) cannot fit the file either.
        mutating func read(_ count: UInt64) -> UnsafeRawBufferPointer? {
            guard let count = Int(exactly: count) else { return nil }
            return read(count)
        }

        mutating func integer(bytes count: Int) -> UInt64? {
            guard let slice = read(count) else { return nil }
            return slice.reduce(0) { $0 << 8 | UInt64($1) }
        }

        mutating func string() -> String? {
            guard let length = integer(bytes: 4), let utf8 = read(length) else { return nil }
            // Decoding repairs invalid UTF-8, so a string whose bytes are not
            // the file's was not valid: cheaper than the generic validating
            // initialiser, which is not specialised here.
            var string = String(decoding: utf8, as: UTF8.self)
            let valid = string.withUTF8 { decoded in
                guard decoded.count == utf8.count else { return false }
                guard let left = decoded.baseAddress, let right = utf8.baseAddress else { return true }
                return memcmp(left, right, utf8.count) == 0
            }
            return valid ? string : nil
        }

        /// `.some(nil)` for an absent value, `nil` for bytes that are not an
        /// optional.
        mutating func optional<Value>(_ read: (inout Reader) -> Value?) -> Value?? {
            guard let flag = self.read(1)?.first else { return nil }
            switch flag {
            case 0: return .some(nil)
            case 1: return read(&self).map { .some($0) }
            default: return nil
            }
        }

        mutating func fields() -> [String: String]? {
            // Each field takes at least 8 bytes: a count beyond what is left
            // is corrupt, and never reserves memory.
            guard let count = integer(bytes: 4), count <= UInt64(bytes.count - offset) / 8 else { return nil }
            guard count > 0 else { return [:] }
            var fields = [String: String](minimumCapacity: Int(count))
            for _ in 0..<count {
                guard let name = string(), let value = string() else { return nil }
                fields[name] = value
            }
            return fields
        }
    }
}
