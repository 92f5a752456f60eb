import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Temporary files only this user can read: created 0600, with `O_EXCL` and
/// without following links, in a 0700 folder of this user's inside the
/// system's temporary folder (another local user can neither read the bodies
/// nor plant a file where one is expected). Downloads and spooled bodies
/// use it; so should a plugin that keeps a body on disk.
///
/// ```swift
/// let (url, handle) = try PrivateTemporaryFile.create(prefix: "my-plugin")
/// defer { try? handle.close() }
/// try handle.write(contentsOf: body)
/// ```
public enum PrivateTemporaryFile {
    /// Creates an empty file named `prefix-<UUID>` and returns its URL and an
    /// open handle for writing. Removing the file is the caller's part.
    /// - Throws: `POSIXError` or `CocoaError` when the folder or the file
    ///   cannot be made.
    public static func create(prefix: String) throws -> (url: URL, handle: FileHandle) {
        let url = try privateFolder().appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        return (url, try createExclusively(at: url))
    }

    /// Creates a new file at `url`, 0600, failing if anything (a file, a link)
    /// is already there, and opens it for writing.
    /// - Throws: `POSIXError` with the reason.
    public static func createExclusively(at url: URL) throws(POSIXError) -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The private folder the files are made in.
    /// - Throws: `CocoaError` when no private folder can be made.
    public static func folderURL() throws -> URL {
        try privateFolder()
    }

    private static let folder = Locked<URL?>(nil)

    /// `$TMPDIR/courier-<uid>`, made 0700 if it is ours; a fresh `mkdtemp`
    /// folder when it is not (a link, someone else's, open to others).
    private static func privateFolder() throws -> URL {
        try folder.withLock { cached in
            if let cached, isPrivate(cached.path) { return cached }
            let base = FileManager.default.temporaryDirectory
            let named = base.appendingPathComponent("courier-\(getuid())")
            _ = mkdir(named.path, 0o700)
            if isPrivate(named.path) {
                cached = named
                return named
            }
            var template = Array(base.appendingPathComponent("courier-XXXXXX").path.utf8CString)
            guard let made = mkdtemp(&template) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: base.path])
            }
            let url = URL(fileURLWithPath: String(cString: made), isDirectory: true)
            cached = url
            return url
        }
    }

    /// A real folder (not a link), owned by this user, closed to others.
    private static func isPrivate(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid() else { return false }
        if info.st_mode & 0o077 != 0 { return chmod(path, 0o700) == 0 }
        return true
    }
}
