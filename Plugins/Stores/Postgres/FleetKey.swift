import Crypto
import Foundation

/// A secret every process of a fleet shares, so that what the fleet keeps in
/// PostgreSQL is of no use to whoever can read the tables, and a row changed
/// by whoever can write them is not used.
///
/// With a key, ``PostgresCredentialStore`` keeps tokens sealed with AES-GCM
/// (bound to the row's name and dates, and to each other, so a token cannot
/// be moved to another row, paired with another, or given other dates), and
/// ``PostgresResponseCache`` seals each body with the row's other columns
/// bound to it and names rows by a keyed hash of the cache key. A row that
/// does not open under the key (written without it, under another key, or
/// changed in the table) is read as absent: a cache miss, or no credential.
/// What a key cannot tell is a whole credential row put back as it was
/// earlier. Without a key, tokens are stored in clear and rows are read as
/// they are, except that a sealed token is read as none.
///
/// Every process of the fleet needs the same key: give it to all of them
/// at once, since processes with different keys (or one without) read each
/// other's rows as absent, sign in again and overwrite them.
///
/// ```swift
/// // Once, when setting up the fleet: keep the text in your secret store.
/// let text = FleetKey.generate()
/// // In each process:
/// var configuration = try PostgresStorage.Configuration(connectionString: url)
/// configuration.fleetKey = try FleetKey(base64: text)
/// ```
///
/// Changing the key makes every row unreadable: the fleet signs in again and
/// its cache starts empty.
public struct FleetKey: Sendable {
    /// Seals tokens.
    let credentials: SymmetricKey
    /// Seals cache bodies.
    let cacheRows: SymmetricKey
    /// Names cache rows.
    let cacheKeys: SymmetricKey

    /// A key from 32 random bytes.
    /// - Throws: ``PostgresStorageError/invalidFleetKey(_:)`` when there are
    ///   not exactly 32 bytes.
    public init(bytes: some ContiguousBytes) throws(PostgresStorageError) {
        let secret = SymmetricKey(data: bytes)
        guard secret.bitCount == 256 else {
            throw .invalidFleetKey("it is \(secret.bitCount / 8) bytes long, not 32")
        }
        // One key for each use, so no use can be turned against another.
        func derived(_ use: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, info: Data("courier fleet key v1: \(use)".utf8), outputByteCount: 32)
        }
        credentials = derived("credentials")
        cacheRows = derived("cache rows")
        cacheKeys = derived("cache keys")
    }

    /// A key from the Base64 text ``generate()`` makes.
    /// - Throws: ``PostgresStorageError/invalidFleetKey(_:)`` when the text is
    ///   not Base64 of 32 bytes.
    public init(base64: String) throws(PostgresStorageError) {
        guard let bytes = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidFleetKey("it is not Base64")
        }
        try self.init(bytes: bytes)
    }

    /// 32 new random bytes as Base64 text, for ``init(base64:)``.
    public static func generate() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    // MARK: - Sealing

    /// `text` sealed for `context`, as text a `text` column holds.
    func sealedText(_ text: String, context: Data) -> String? {
        Self.seal(Data(text.utf8), using: credentials, context: context).map { Self.textMark + $0.base64EncodedString() }
    }

    /// The text `sealedText(_:context:)` sealed for `context`, or `nil` when
    /// it does not open: not sealed, sealed for another row or under another
    /// key, or changed.
    func openedText(_ stored: String, context: Data) -> String? {
        guard Self.isSealed(stored), let combined = Data(base64Encoded: String(stored.dropFirst(Self.textMark.count))),
              let opened = Self.open(combined, using: credentials, context: context)
        else { return nil }
        return String(data: opened, encoding: .utf8)
    }

    /// What marks a sealed token.
    private static let textMark = "sealed-v1:"

    /// Whether a column's text is a token sealed under some fleet key.
    static func isSealed(_ stored: String) -> Bool {
        stored.hasPrefix(textMark)
    }

    /// `data` sealed with `context` bound to it.
    func sealed(_ data: Data, context: Data) -> Data? {
        Self.seal(data, using: cacheRows, context: context)
    }

    /// The data `sealed(_:context:)` sealed, or `nil` when it does not open.
    func opened(_ sealed: Data, context: Data) -> Data? {
        Self.open(sealed, using: cacheRows, context: context)
    }

    /// AES-GCM with a random nonce: nonce, ciphertext and tag in one.
    private static func seal(_ data: Data, using key: SymmetricKey, context: Data) -> Data? {
        (try? AES.GCM.seal(data, using: key, authenticating: context))?.combined
    }

    private static func open(_ combined: Data, using key: SymmetricKey, context: Data) -> Data? {
        guard let box = try? AES.GCM.SealedBox(combined: combined) else { return nil }
        return try? AES.GCM.open(box, using: key, authenticating: context)
    }

    /// The keyed hash that names a cache row.
    func digest(ofCacheKey key: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(key.utf8), using: cacheKeys))
    }
}

/// Fields joined so that no two lists of fields join alike: each one's
/// length, then its bytes.
struct SealContext {
    private(set) var bytes = Data()

    init(_ label: String) {
        append(label)
    }

    mutating func append(_ field: Data) {
        withUnsafeBytes(of: UInt64(field.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(field)
    }

    mutating func append(_ field: String) {
        append(Data(field.utf8))
    }

    mutating func append(_ number: Double?) {
        append(number.map { withUnsafeBytes(of: $0.bitPattern.bigEndian) { Data($0) } } ?? Data())
    }
}
