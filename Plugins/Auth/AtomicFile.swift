import Courier
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a file so that a reader sees the old contents or the new, never a
/// mix: a temporary sibling created with 0600 permissions, flushed, then
/// renamed over the target.
enum AtomicFile {
    static func save(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw CredentialStoreError.writeFailed(path: url.path, reason: "cannot create \(directory.path)")
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try create(temporary.path, containing: data)
            guard rename(temporary.path, url.path) == 0 else { throw lastError() }
        } catch {
            unlink(temporary.path)
            throw CredentialStoreError.writeFailed(path: url.path, reason: "\(error)")
        }
    }

    /// Creates `path` (it must not exist) readable by its owner only, so the
    /// token is never in a file others can read, not even for a moment.
    private static func create(_ path: String, containing data: Data) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw lastError() }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw lastError()
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw lastError() }
    }

    private static func lastError() -> POSIXErrorDescription {
        POSIXErrorDescription(code: errno)
    }
}

/// An `errno` with its text, for error messages.
struct POSIXErrorDescription: Error, CustomStringConvertible {
    let code: Int32

    var description: String { String(cString: strerror(code)) }
}
