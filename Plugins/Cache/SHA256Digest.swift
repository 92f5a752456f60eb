import Courier
import Foundation

/// A SHA-256 digest (FIPS 180-4), written out here so that the cache needs no
/// package: disk file names and request-body fingerprints come from it.
///
/// The whole input is hashed in one call, blocks read straight from its
/// bytes and the padding built on the stack, so a digest allocates nothing;
/// only ``hex`` makes a string. The disk cache keys its index by the digest
/// itself (32 bytes, compared word by word) rather than by its hex name.
struct SHA256Digest: Hashable, Sendable {
    /// The digest's 32 bytes as four big-endian 64-bit words.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        var state = State()
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            guard let schedule = schedule.baseAddress else { return }
            var offset = 0
            if let base = bytes.baseAddress {
                while bytes.count - offset >= 64 {
                    state.compress(base + offset, schedule: schedule)
                    offset += 64
                }
            }
            // The last bytes, 0x80, zeros and the length in bits: one block,
            // or two when fewer than nine bytes of the first are left.
            withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
                guard let tailBase = tail.baseAddress else { return }
                let rest = bytes.count - offset
                tail.initializeMemory(as: UInt8.self, repeating: 0)
                if rest > 0, let base = bytes.baseAddress {
                    tailBase.copyMemory(from: base + offset, byteCount: rest)
                }
                tail[rest] = 0x80
                let blocks = rest < 56 ? 1 : 2
                tail.storeBytes(of: (UInt64(bytes.count) &* 8).bigEndian, toByteOffset: blocks * 64 - 8, as: UInt64.self)
                for block in 0..<blocks {
                    state.compress(tailBase + block * 64, schedule: schedule)
                }
            }
        }
        words = (UInt64(state.a) << 32 | UInt64(state.b), UInt64(state.c) << 32 | UInt64(state.d),
                 UInt64(state.e) << 32 | UInt64(state.f), UInt64(state.g) << 32 | UInt64(state.h))
    }

    /// The digest of `data`.
    init(_ data: Data) {
        self = data.withUnsafeBytes { SHA256Digest($0) }
    }

    /// The digest of a string's UTF-8 bytes.
    init(_ string: String) {
        var string = string
        self = string.withUTF8 { SHA256Digest(UnsafeRawBufferPointer($0)) }
    }

    /// The HMAC-SHA256 (RFC 2104) of `message` under `key`: a digest no one
    /// can compute, and so no one can test a guess against, without the key.
    init(authenticating message: UnsafeRawBufferPointer, with key: HMACKey) {
        // Both padded inputs on the stack (a disk cache hit hashes its key
        // here): the key block XOR'd with a pad, then the message or the
        // inner digest.
        let innerDigest = withUnsafeTemporaryAllocation(byteCount: 64 + message.count, alignment: 8) { inner in
            for index in 0..<64 { inner[index] = key.block[index] ^ 0x36 }
            UnsafeMutableRawBufferPointer(rebasing: inner[64...]).copyMemory(from: message)
            return SHA256Digest(UnsafeRawBufferPointer(inner))
        }
        self = withUnsafeTemporaryAllocation(byteCount: 96, alignment: 8) { outer in
            for index in 0..<64 { outer[index] = key.block[index] ^ 0x5c }
            innerDigest.writeBytes(to: UnsafeMutableRawBufferPointer(rebasing: outer[64...]))
            return SHA256Digest(UnsafeRawBufferPointer(outer))
        }
    }

    /// The HMAC-SHA256 of a string's UTF-8 bytes under `key`.
    init(authenticating string: String, with key: HMACKey) {
        var string = string
        self = string.withUTF8 { SHA256Digest(authenticating: UnsafeRawBufferPointer($0), with: key) }
    }

    /// Writes the digest's 32 bytes to the start of `buffer`.
    func writeBytes(to buffer: UnsafeMutableRawBufferPointer) {
        for (position, word) in [words.0, words.1, words.2, words.3].enumerated() {
            buffer.storeBytes(of: word.bigEndian, toByteOffset: position * 8, as: UInt64.self)
        }
    }

    /// The digest whose lower-case hex form is `hex` (64 digits), or `nil`
    /// for anything else.
    init?(hex: UnsafeRawBufferPointer) {
        guard hex.count == 64 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var index = 0
        for digit in hex {
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
            index += 1
        }
        self.words = words
    }

    /// The digest whose lower-case hex form is `hex`, or `nil` for anything
    /// else.
    init?(hex: String) {
        var hex = hex
        guard let digest = hex.withUTF8({ SHA256Digest(hex: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = digest
    }

    /// The lower-case hex digest of `data`.
    static func hex(_ data: Data) -> String {
        SHA256Digest(data).hex
    }

    /// The lower-case hex digest of a string's UTF-8 bytes.
    static func hex(_ string: String) -> String {
        SHA256Digest(string).hex
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
        withUnsafeBytes(of: words) { raw in
            for position in 0..<4 {
                let word = raw.load(fromByteOffset: position * 8, as: UInt64.self)
                for digit in 0..<16 {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * digit)) & 0xF
                    buffer[position * 16 + digit] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                }
            }
        }
    }

    static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    // MARK: - Compression function

    /// The eight working words, starting from the standard's initial values.
    private struct State {
        var a: UInt32 = 0x6a09_e667, b: UInt32 = 0xbb67_ae85, c: UInt32 = 0x3c6e_f372, d: UInt32 = 0xa54f_f53a
        var e: UInt32 = 0x510e_527f, f: UInt32 = 0x9b05_688c, g: UInt32 = 0x1f83_d9ab, h: UInt32 = 0x5be0_cd19

        /// Folds in one 64-byte block at `block`, with `w` (64 words) as the
        /// message schedule. The rounds run eight at a time with the roles of
        /// the working words rotated by hand, so no round moves them.
        mutating func compress(_ block: UnsafeRawPointer, schedule w: UnsafeMutablePointer<UInt32>) {
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h)
            SHA256Digest.roundConstants.withUnsafeBufferPointer { constants in
                guard let k = constants.baseAddress else { return }
                for i in stride(from: 0, to: 64, by: 8) {
                    round(a, b, c, &d, e, f, g, &h, k[i] &+ w[i])
                    round(h, a, b, &c, d, e, f, &g, k[i + 1] &+ w[i + 1])
                    round(g, h, a, &b, c, d, e, &f, k[i + 2] &+ w[i + 2])
                    round(f, g, h, &a, b, c, d, &e, k[i + 3] &+ w[i + 3])
                    round(e, f, g, &h, a, b, c, &d, k[i + 4] &+ w[i + 4])
                    round(d, e, f, &g, h, a, b, &c, k[i + 5] &+ w[i + 5])
                    round(c, d, e, &f, g, h, a, &b, k[i + 6] &+ w[i + 6])
                    round(b, c, d, &e, f, g, h, &a, k[i + 7] &+ w[i + 7])
                }
            }
            self.a &+= a; self.b &+= b; self.c &+= c; self.d &+= d
            self.e &+= e; self.f &+= f; self.g &+= g; self.h &+= h
        }

        /// One round: `d` takes the new `e`, `h` the new `a` (FIPS 180-4,
        /// 6.2.2 step 3, with the shift of the working words left to the
        /// caller).
        @inline(__always)
        private func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                           _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ constantAndWord: UInt32) {
            let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ constantAndWord
            let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            d &+= t1
            h = t1 &+ t2
        }

        @inline(__always)
        private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

/// A key for HMAC-SHA256 (`SHA256Digest(authenticating:with:)`):
/// up to 64 bytes, zero-padded to SHA-256's block.
struct HMACKey: Sendable {
    /// The key padded to 64 bytes.
    let block: [UInt8]

    /// A key of `bytes`: at most 64 of them (a longer key would have to be
    /// hashed first, which no caller here needs).
    init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count <= 64, "an HMAC key of more than 64 bytes")
        block = Array(bytes) + [UInt8](repeating: 0, count: 64 - bytes.count)
    }
}
