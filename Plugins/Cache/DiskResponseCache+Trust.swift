import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Trusting the directory and its files

extension DiskResponseCache {
    /// Why `directory` cannot be trusted, or `nil` when it can: it must be a
    /// real directory (not a link) owned by this user. One that others may
    /// read or write is made owner-only.
    ///
    /// The directory is opened once, without following a link, and examined
    /// and changed through that descriptor: a link swapped in for it after
    /// the check cannot redirect the change of mode.
    static func distrust(_ directory: URL) -> String? {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ELOOP: return "it is a symbolic link"
            case ENOTDIR: return "it is not a directory"
            case let code: return "it cannot be examined (errno \(code))"
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "it cannot be examined (errno \(errno))" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "it is not a directory" }
        guard info.st_uid == geteuid() else { return "it belongs to another user (uid \(info.st_uid))" }
        if info.st_mode & 0o077 != 0, fchmod(descriptor, 0o700) != 0 {
            return "others may read or write it, and it cannot be made owner-only (errno \(errno))"
        }
        return nil
    }

    static let secretFileName = ".courier-cache-key"

    /// The directory's hashing key: read from its key file, or made (32
    /// random bytes) when there is none. A key file that is not a regular,
    /// owner-only file of this user's holding 16 to 64 bytes is replaced by a
    /// new one, so entries hashed under it are never found again (they are
    /// trimmed in time).
    /// - Throws: ``CachePlugin/Failure/directoryUnavailable(_:_:)`` when no
    ///   key can be read or written.
    static func secret(in directory: URL) throws(CachePlugin.Failure) -> SymmetricKey {
        let path = directory.appendingPathComponent(secretFileName).path
        if case .read(let bytes) = readEntryFile(atPath: path, owner: geteuid(), limit: 64, privateOnly: true),
           (16...64).contains(bytes.count) {
            return SymmetricKey(data: bytes)
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString)").appendingPathExtension(temporaryExtension)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .directoryUnavailable(directory, POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
        }
        defer { unlink(temporary.path) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: bytes)
            try handle.close()
        } catch {
            throw .directoryUnavailable(directory, error)
        }
        // A new directory: link fails if another process made the key first,
        // and then its key is the one to use. A bad key file: replaced.
        if link(temporary.path, path) != 0 {
            if case .read(let theirs) = readEntryFile(atPath: path, owner: geteuid(), limit: 64, privateOnly: true),
               (16...64).contains(theirs.count) {
                return SymmetricKey(data: theirs)
            }
            guard rename(temporary.path, path) == 0 else {
                throw .directoryUnavailable(directory, POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
        }
        return SymmetricKey(data: bytes)
    }

    enum EntryFile {
        case missing
        case refused
        case read([UInt8])
    }

    /// Reads an entry file without following links or blocking: only a
    /// regular file of `owner`'s, no larger than `limit` (and, when
    /// `privateOnly`, that no one else may read or write), is read.
    static func readEntryFile(atPath path: String, owner: uid_t, limit: Int, privateOnly: Bool = false) -> EntryFile {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .missing : .refused }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == owner,
              info.st_size >= 0, info.st_size <= off_t(limit), !privateOnly || info.st_mode & 0o077 == 0
        else { return .refused }
        let size = Int(info.st_size)
        var count = 0
        let data = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            if let base = buffer.baseAddress {
                while count < size {
                    let got = read(descriptor, base + count, size - count)
                    if got <= 0 { break }
                    count += got
                }
            }
            initialized = count
        }
        return count == size ? .read(data) : .refused
    }
}
