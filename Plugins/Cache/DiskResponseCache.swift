import Courier
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps responses on disk, one file per entry under a directory you choose,
/// so they survive the process: a new store (or a new provider) on the same
/// directory serves what an earlier one stored. Thread-safe.
///
/// - File names are a keyed hash of the key (HMAC-SHA256 under a random key
///   the store keeps owner-only in the directory, `.courier-cache-key`), and a
///   file holds that hash in place of the key and the URL without its query,
///   so no key, query or token reaches the disk in clear, and a copy of the
///   files without the key file cannot be used to test guesses of a password
///   or a query offline. The digests of `Authorization` and of the values a
///   response varies on are keyed the same way (``fingerprint(of:)``).
/// - The directory must belong to the user and not be a symbolic link; one
///   that others may read or write is made owner-only (0700). Entries are
///   opened without following links, and anything but a regular file of the
///   user's (a link, a pipe, another user's file) is a miss at once. A
///   directory removed while the store is open is created again by the next
///   write.
/// - Each write goes to a temporary file that is then renamed over the entry,
///   so a reader or a crash never sees half an entry.
/// - Files use a versioned format with a checksum (see the source of
///   `CacheFileFormat`); a corrupt, truncated or foreign file is a miss and is
///   removed.
/// - Past `Configuration/sizeLimit`, the least recently used entries go.
///
/// ```swift
/// let directory = FileManager.default.temporaryDirectory.appendingPathComponent("api-cache")
/// let disk = try DiskResponseCache(directory: directory, configuration: .init(sizeLimit: 100 << 20))
/// let provider = Provider<API>(plugins: [CachePlugin(storage: disk)])
/// ```
public final class DiskResponseCache: ResponseCaching {
    /// Limits and lifetime of a disk store.
    public struct Configuration: Sendable {
        /// The most bytes of files kept.
        public var sizeLimit: Int
        /// How long an entry stored without an expiry lives, or `nil` for
        /// until it is trimmed.
        public var defaultLifetime: TimeInterval?
        /// Temporary files older than this, left by a process that died while
        /// writing, are deleted when a store opens the directory.
        public var abandonedWriteAge: TimeInterval
        /// The current time, for expiry.
        public var clock: CacheClock

        /// Creates a configuration.
        /// - Parameters:
        ///   - sizeLimit: The most bytes of files kept.
        ///   - defaultLifetime: The lifetime of entries stored without an
        ///     expiry; `nil` keeps them until trimmed.
        ///   - abandonedWriteAge: When a leftover temporary file counts as
        ///     abandoned.
        ///   - clock: The current time.
        public init(
            sizeLimit: Int = 100 * 1024 * 1024,
            defaultLifetime: TimeInterval? = nil,
            abandonedWriteAge: TimeInterval = 3_600,
            clock: @escaping CacheClock = { Date() }
        ) {
            self.sizeLimit = sizeLimit
            self.defaultLifetime = defaultLifetime
            self.abandonedWriteAge = abandonedWriteAge
            self.clock = clock
        }
    }

    static let fileExtension = "courier-cache"
    static let temporaryExtension = "partial"

    /// The directory holding the files.
    public let directory: URL
    /// `directory`'s path with a trailing slash: a hit builds its file's path
    /// from it without making a `URL`.
    private let directoryPath: String
    /// The limits and lifetime.
    public let configuration: Configuration
    /// The user the store's files must belong to: the one that opened it.
    private let owner = geteuid()
    // Guards the index and serialises file operations of this instance; other
    // instances on the same directory stay safe through atomic renames. Keyed
    // by the digest that names each file: 32 bytes compared word by word,
    // where the file name would be 78 characters hashed and compared.
    private let index = Locked(LRUIndex<CacheDigest, Void>())
    /// The key of the keyed hashes, read from the directory's key file.
    /// HMAC-SHA256 keyed with the directory's key, copied for each digest
    /// (the key is set up once, not per hit).
    private let secret: HMAC<SHA256>

    /// Opens (and creates, if needed) a disk store in `directory`.
    /// - Parameters:
    ///   - directory: Where the files go; give each cache its own directory.
    ///   - configuration: Limits and lifetime.
    /// - Throws: `NetworkError/plugin(_:_:)` with
    ///   ``CachePlugin/Failure/directoryUnavailable(_:_:)`` when the directory
    ///   cannot be created or read.
    public init(directory: URL, configuration: Configuration = Configuration()) throws(NetworkError) {
        self.directory = directory
        self.directoryPath = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        self.configuration = configuration
        let files: [URL]
        do {
            // Entries may hold personal data: only the owner may list or read them.
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
            if let reason = Self.distrust(directory) {
                throw CachePlugin.Failure.untrustedDirectory(directory, reason: reason)
            }
            secret = HMAC<SHA256>(key: try Self.secret(in: directory))
            files = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey]
            )
        } catch let failure as CachePlugin.Failure {
            throw .plugin("CachePlugin", failure)
        } catch {
            throw .plugin("CachePlugin", CachePlugin.Failure.directoryUnavailable(directory, error))
        }
        loadIndex(from: files)
    }

    /// The file that holds (or would hold) the entry for `key`.
    public func fileURL(forKey key: String) -> URL {
        fileURL(digest(key))
    }

    /// The keyed hash that names the file of `key`.
    private func digest(_ key: String) -> CacheDigest {
        CacheDigest(authenticating: key, with: secret)
    }

    /// The file of the key whose digest is `digest`.
    private func fileURL(_ digest: CacheDigest) -> URL {
        directory.appendingPathComponent(digest.hex + "." + Self.fileExtension, isDirectory: false)
    }

    /// The path of the file of the key whose digest is `digest`, built in one
    /// string.
    private func path(_ digest: CacheDigest) -> String {
        let directory = directoryPath.utf8
        let suffix = ("." + Self.fileExtension).utf8
        return String(unsafeUninitializedCapacity: directory.count + 64 + suffix.count) { buffer in
            var end = buffer.initialize(fromContentsOf: directory)
            digest.writeHex(to: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[end...])))
            end += 64
            end += UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: suffix)
            return end
        }
    }

    /// How many bytes the store's files hold, as far as this instance knows.
    public var totalSize: Int { index.withLock { $0.totalCost } }

    // MARK: - ResponseCaching

    /// The entry for `key`, read from its file; a file that is expired, corrupt,
    /// truncated or foreign is removed and counts as a miss.
    public func entry(forKey key: String) -> CachedResponse? {
        let digest = digest(key)
        let path = path(digest)
        return index.withLock { index in
            let data: [UInt8]
            switch Self.readEntryFile(atPath: path, owner: owner, limit: configuration.sizeLimit) {
            case .missing:
                index.remove(digest)
                return nil
            case .refused:
                // A link, a pipe, another user's file: never read, never served.
                unlink(path)
                index.remove(digest)
                return nil
            case .read(let contents):
                data = contents
            }
            // The clock only for entries that can expire.
            guard var entry = data.withUnsafeBytes({ CacheFileFormat.decode($0) }), entry.key != key,
                  entry.expiresAt == nil || !entry.isExpired(at: configuration.clock()) else {
                // Expired, corrupt, or written by an older version with the
                // key in clear: removed.
                unlink(path)
                index.remove(digest)
                return nil
            }
            // A different key with the same hash: not ours to serve or delete.
            guard Self.isStoredKey(entry.key, of: digest) else { return nil }
            entry.key = key
            index.insert(digest, value: (), cost: data.count)
            return entry
        }
    }

    /// Writes `entry` to a temporary file and renames it into place, then trims to the size limit.
    public func store(_ entry: CachedResponse, forKey key: String) {
        var entry = entry
        entry.key = key
        if entry.expiresAt == nil, let lifetime = configuration.defaultLifetime {
            entry.expiresAt = entry.storedAt.addingTimeInterval(lifetime)
        }
        // On disk, the key only as its hash and the URL without its query:
        // neither may hold a token in clear. A hit is rebuilt with the
        // request's own URL.
        let digest = digest(key)
        var stored = entry
        stored.key = Self.storedKey(digest)
        stored.url = entry.url.flatMap(URLRedactor.removingSecrets(from:))
        guard let data = CacheFileFormat.encode(stored) else { return }
        let url = fileURL(digest)
        index.withLock { index in
            guard data.count <= configuration.sizeLimit, write(data, to: url) else {
                try? FileManager.default.removeItem(at: url)
                index.remove(digest)
                return
            }
            index.insert(digest, value: (), cost: data.count)
            trim(&index)
        }
    }

    /// Removes the entry for `key`, file and all.
    public func removeEntry(forKey key: String) {
        let digest = digest(key)
        let path = path(digest)
        index.withLock { index in
            unlink(path)
            index.remove(digest)
        }
    }

    /// Removes every entry: each file named by a digest, whichever store on
    /// the directory wrote it. Other files are left alone.
    public func removeAll() {
        index.withLock { index in
            let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
            for file in files where Self.digest(naming: file) != nil {
                unlink(file.path)
            }
            index.removeAll()
        }
    }

    /// The HMAC-SHA256 of `value` under the store's key, in hex: what
    /// ``CachePlugin`` puts in keys and entries in place of an `Authorization`
    /// value, a request body or a value a response varies on.
    public func fingerprint(of value: Data) -> String {
        value.withUnsafeBytes { CacheDigest(authenticating: $0, with: secret) }.hex
    }

    // MARK: - Files

    /// Writes `data` to a temporary file beside `url`, then renames it over
    /// `url`: rename is atomic, so readers see the old file or the new one.
    private func write(_ data: Data, to url: URL) -> Bool {
        let temporary = directory
            .appendingPathComponent(".\(UUID().uuidString)")
            .appendingPathExtension(Self.temporaryExtension)
        // Created owner-only from the start, so no other user can ever read
        // the response, not even between creation and a later chmod.
        var descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        if descriptor < 0, errno == ENOENT {
            // The directory was removed while the store was open: make it again.
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            guard Self.distrust(directory) == nil else { return false }
            descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        }
        guard descriptor >= 0 else { return false }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        return true
    }

    private func trim(_ index: inout LRUIndex<CacheDigest, Void>) {
        while index.totalCost > configuration.sizeLimit, let victim = index.leastRecent {
            unlink(path(victim))
            index.remove(victim)
        }
    }

    /// Indexes the existing files, oldest modification first, and deletes
    /// abandoned temporary files. A file whose name is not a digest is not
    /// one of the store's and is left alone.
    private func loadIndex(from files: [URL]) {
        let now = Date()
        var found: [(digest: CacheDigest, size: Int, modified: Date)] = []
        for file in files {
            let values = try? file.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
            let modified = values?.contentModificationDate ?? .distantPast
            switch file.pathExtension {
            case Self.fileExtension:
                guard let digest = Self.digest(naming: file) else { continue }
                found.append((digest, values?.fileSize ?? 0, modified))
            case Self.temporaryExtension where now.timeIntervalSince(modified) > configuration.abandonedWriteAge:
                try? FileManager.default.removeItem(at: file)
            default:
                continue
            }
        }
        index.withLock { index in
            for file in found.sorted(by: { $0.modified < $1.modified }) {
                index.insert(file.digest, value: (), cost: file.size)
            }
            trim(&index)
        }
    }

    // MARK: - Trust

    /// The digest an entry file is named by, or `nil` when `file` is not
    /// named like an entry.
    private static func digest(naming file: URL) -> CacheDigest? {
        guard file.pathExtension == fileExtension else { return nil }
        return CacheDigest(hex: file.deletingPathExtension().lastPathComponent)
    }

    private static let storedKeyPrefix = "sha256:"
    private static let storedKeyLength = storedKeyPrefix.utf8.count + 64

    /// What a file holds in place of the key whose digest is `digest`.
    static func storedKey(_ digest: CacheDigest) -> String {
        storedKeyPrefix + digest.hex
    }

    /// Whether a file's stored key names `digest`: its bytes are compared
    /// with the expected ones, nothing is parsed or allocated.
    private static func isStoredKey(_ storedKey: String, of digest: CacheDigest) -> Bool {
        var storedKey = storedKey
        return storedKey.withUTF8 { bytes in
            guard bytes.count == storedKeyLength, let base = bytes.baseAddress else { return false }
            return withUnsafeTemporaryAllocation(byteCount: storedKeyLength, alignment: 1) { expected in
                guard let expectedBase = expected.baseAddress else { return false }
                expected.copyBytes(from: storedKeyPrefix.utf8)
                digest.writeHex(to: UnsafeMutableRawBufferPointer(rebasing: expected[storedKeyPrefix.utf8.count...]))
                return memcmp(base, expectedBase, storedKeyLength) == 0
            }
        }
    }
}
