import Courier
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Keeps a ``Credential`` in a JSON file that only its owner can read (0600),
/// written atomically: a crash mid-write leaves the previous file whole.
///
/// The file is read once, when the store is created. A file that cannot be
/// read as a credential (truncated, edited by hand, from another app) makes an
/// empty store and a warning, never a crash; the next save replaces it.
///
/// ```swift
/// let store = FileCredentialStore(
///     fileURL: appSupport.appendingPathComponent("credential.json"),
///     warningHandler: { message in logger.warning("\(message)") }
/// )
/// ```
///
/// One store per file: two stores on the same file do not see each other's
/// changes until they are created again.
public final class FileCredentialStore: CredentialStoring {
    /// Receives a warning (never containing a token), for example that the
    /// file was corrupt and has been ignored.
    public typealias WarningHandler = @Sendable (String) -> Void

    /// Where the credential lives.
    public let fileURL: URL
    private let cached: Locked<Credential?>

    /// Creates a store on `fileURL` and reads the credential already there.
    /// - Parameters:
    ///   - fileURL: The JSON file; its directory is created on the first save
    ///     when missing.
    ///   - warningHandler: Receives warnings; by default they go to standard
    ///     error.
    public init(fileURL: URL, warningHandler: WarningHandler? = nil) {
        self.fileURL = fileURL
        let warn = warningHandler ?? Self.printToStandardError
        self.cached = Locked(Self.read(fileURL, warn: warn))
    }

    // MARK: - CredentialStoring

    /// The credential read from the file or saved since, or `nil`.
    public var credential: Credential? {
        cached.withLock { $0 }
    }

    /// Writes `credential` to the file atomically with 0600 permissions.
    /// - Parameter credential: The credential to keep.
    /// - Throws: ``CredentialStoreError`` when it cannot be written; the file
    ///   and `credential` then still hold the previous one.
    public func save(_ credential: Credential) throws {
        let data = try Self.encoded(credential)
        try cached.withLock { cached in
            try AtomicFile.save(data, to: fileURL)
            cached = credential
        }
    }

    /// Deletes the file.
    /// - Throws: ``CredentialStoreError/removeFailed(path:reason:)`` when it
    ///   exists and cannot be removed.
    public func clear() throws {
        try cached.withLock { cached in
            try remove()
            cached = nil
        }
    }

    /// Writes `credential` (or, for `nil`, deletes the file) while the store
    /// still holds the credential whose access token is `accessToken`, under
    /// the lock `save` and `clear` take: a sign-out can come before or after,
    /// never between the check and the write.
    /// - Returns: `false`, changing nothing, when the store holds another.
    /// - Throws: ``CredentialStoreError`` when the file cannot be written or
    ///   removed; the store then still holds what it held.
    public func replaceCredential(holding accessToken: String?, with credential: Credential?) throws -> Bool {
        let data = try credential.map(Self.encoded)
        return try cached.withLock { cached in
            guard cached?.accessToken == accessToken else { return false }
            if let data { try AtomicFile.save(data, to: fileURL) } else { try remove() }
            cached = credential
            return true
        }
    }

    private func remove() throws {
        if unlink(fileURL.path) != 0, errno != ENOENT {
            throw CredentialStoreError.removeFailed(path: fileURL.path, reason: String(cString: strerror(errno)))
        }
    }

    private static func encoded(_ credential: Credential) throws -> Data {
        do {
            return try encoder.encode(credential)
        } catch {
            throw CredentialStoreError.encodingFailed(reason: "\(type(of: error))")
        }
    }

    // MARK: - Reading

    /// The credential in the regular file at `url`. A symbolic link or
    /// anything but a regular file there (a FIFO would block the read for
    /// ever) is ignored with a warning; so is a file owned by someone else,
    /// and a file others can read is read with a warning that says so.
    private static func read(_ url: URL, warn: WarningHandler) -> Credential? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno != ENOENT {
                warn("The credential file at \(url.path) could not be opened (\(String(cString: strerror(errno))); "
                    + "a symbolic link is never followed); starting with no credential.")
            }
            return nil
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
            warn("The path \(url.path) is not a regular file of this user; it is ignored, and starting with no credential.")
            return nil
        }
        if status.st_mode & 0o077 != 0 {
            warn("The credential file at \(url.path) can be read by other users (mode "
                + String(status.st_mode & 0o777, radix: 8) + "); the next save makes it 0600.")
        }
        do {
            return try decode(try handle.readToEnd() ?? Data())
        } catch {
            // The reason names only the error's type: a decoding error's text
            // may quote the file, and the file holds tokens.
            warn("The credential file at \(url.path) could not be read (\(type(of: error))); "
                + "starting with no credential. The next save replaces the file.")
            return nil
        }
    }

    /// A credential from the file's bytes.
    static func decode(_ data: Data) throws -> Credential {
        try decoder.decode(Credential.self, from: data)
    }

    private static func printToStandardError(_ message: String) {
        FileHandle.standardError.write(Data("[CourierAuth] warning: \(message)\n".utf8))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
