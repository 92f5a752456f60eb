import Courier
import Crypto
import Foundation

/// A SHA-256 or HMAC-SHA256 digest, computed by swift-crypto, in the form the
/// caches keep it: 32 bytes compared word by word (the disk cache's index
/// key) and 64 lower-case hex digits (its file names, and fingerprints).
struct CacheDigest: Hashable, Sendable {
    /// The digest's 32 bytes as four big-endian 64-bit words.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest whose 32 bytes these are.
    private init(digestBytes bytes: UnsafeRawBufferPointer) {
        func word(_ index: Int) -> UInt64 {
            UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
        }
        words = (word(0), word(1), word(2), word(3))
    }

    /// The SHA-256 of `data`.
    init(_ data: Data) {
        self = SHA256.hash(data: data).withUnsafeBytes(CacheDigest.init(digestBytes:))
    }

    /// The SHA-256 of a string's UTF-8 bytes.
    init(_ string: String) {
        self.init(Data(string.utf8))
    }

    /// The HMAC-SHA256 (RFC 2104) of `message` under `key`: a digest no one
    /// can compute, and so no one can test a guess against, without the key.
    /// `keyed` is an HMAC already set up with the key, which is copied.
    init(authenticating message: UnsafeRawBufferPointer, with keyed: HMAC<SHA256>) {
        var mac = keyed
        mac.update(data: message)
        self = mac.finalize().withUnsafeBytes(CacheDigest.init(digestBytes:))
    }

    /// The HMAC-SHA256 of a string's UTF-8 bytes under the key `keyed` was
    /// set up with.
    init(authenticating string: String, with key: HMAC<SHA256>) {
        var string = string
        self = string.withUTF8 { CacheDigest(authenticating: UnsafeRawBufferPointer($0), with: key) }
    }

    /// The digest whose lower-case hex form is `hex` (64 digits), or `nil`
    /// for anything else.
    init?(hex: UnsafeRawBufferPointer) {
        guard hex.count == 64 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, digit) in hex.enumerated() {
            let value: UInt64
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(digit - UInt8(ascii: "a") + 10)
            default: return nil
            }
            switch index / 16 {
            case 0: words.0 = words.0 << 4 | value
            case 1: words.1 = words.1 << 4 | value
            case 2: words.2 = words.2 << 4 | value
            default: words.3 = words.3 << 4 | value
            }
        }
        self.words = words
    }

    /// The digest whose lower-case hex form is `hex`, or `nil` for anything
    /// else.
    init?(hex: String) {
        var hex = hex
        guard let digest = hex.withUTF8({ CacheDigest(hex: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = digest
    }

    /// The lower-case hex SHA-256 of `data`.
    static func hex(_ data: Data) -> String {
        CacheDigest(data).hex
    }

    /// The lower-case hex SHA-256 of a string's UTF-8 bytes.
    static func hex(_ string: String) -> String {
        CacheDigest(string).hex
    }

    /// The 64 lower-case hex digits.
    var hex: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            writeHex(to: UnsafeMutableRawBufferPointer(buffer))
            return 64
        }
    }

    /// Writes the 64 lower-case hex digits to the start of `buffer`, which
    /// must have room for them.
    func writeHex(to buffer: UnsafeMutableRawBufferPointer) {
        for (position, word) in [words.0, words.1, words.2, words.3].enumerated() {
            for digit in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * digit)) & 0xF
                buffer[position * 16 + digit] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
        }
    }

    static func == (lhs: CacheDigest, rhs: CacheDigest) -> Bool {
        lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
