import Crypto
import Foundation

/// swift-crypto's SHA-256, the one Courier uses, under the name the tests
/// use, with the hex forms they compare: whether a downloaded file holds
/// exactly the bytes the server sent, and what a disk cache file is named.
public typealias SHA256 = Crypto.SHA256

extension Crypto.SHA256 {
    /// The lower-case hex digest of `data`.
    public static func hex(_ data: Data) -> String {
        hash(data: data).hexDigits
    }

    /// The lower-case hex HMAC-SHA256 (RFC 2104) of `message` under `key`.
    public static func hmacHex(key: Data, message: Data) -> String {
        HMAC<Crypto.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)).hexDigits
    }

    /// The lower-case hex digest of a file's contents, read in chunks so a
    /// large file need not sit in memory.
    public static func hex(fileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = Crypto.SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().hexDigits
    }

    /// An empty digest to ``update(_:)`` chunk by chunk.
    public static func incremental() -> Self {
        Self()
    }

    /// Adds `data` to the digest.
    public mutating func update(_ data: Data) {
        update(data: data)
    }

    /// The lower-case hex digest of everything added.
    public func finalizeHex() -> String {
        finalize().hexDigits
    }
}

extension ContiguousBytes {
    /// The bytes as lower-case hex digits.
    fileprivate var hexDigits: String {
        withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }
}
