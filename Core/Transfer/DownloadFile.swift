import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A download on its way to disk: a 0600 temporary file next to its
/// destination, moved there only once the response passed validation, so an
/// error body never replaces a file.
final class DownloadFile: Sendable {
    let temporaryURL: URL
    let destination: URL
    let options: DownloadOptions
    private let handle: FileHandle
    private let state = Locked(State())

    private struct State {
        var closed = false
        var placed = false
    }

    /// Creates the temporary file in the destination's folder (creating the
    /// folder, 0700, when the options ask for it).
    init(destination: URL, options: DownloadOptions) throws(NetworkError) {
        let folder = destination.deletingLastPathComponent()
        if options.contains(.createIntermediateDirectories) {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        let url = folder.appendingPathComponent(".courier-\(UUID().uuidString).download")
        do {
            self.handle = try PrivateTemporaryFile.createExclusively(at: url)
        } catch {
            throw .downloadFailed(.cannotCreateTemporaryFile(path: url.path, reason: Self.reason(error.code.rawValue)))
        }
        self.temporaryURL = url
        self.destination = destination
        self.options = options
    }

    func write(_ chunk: Data) throws(NetworkError) {
        do {
            try handle.write(contentsOf: chunk)
        } catch {
            throw .downloadFailed(.writeFailed(reason: String(describing: error)))
        }
    }

    func close() throws(NetworkError) {
        let wasClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !wasClosed else { return }
        do {
            try handle.close()
        } catch {
            throw .downloadFailed(.writeFailed(reason: String(describing: error)))
        }
    }

    /// Removes the temporary file unless it was placed.
    func discard() {
        try? close()
        let placed = state.withLock { $0.placed }
        if !placed { unlink(temporaryURL.path) }
    }

    /// Moves the file to its destination and returns where it went: replacing
    /// a file there only with ``DownloadOptions/removePreviousFile``, choosing
    /// a free name with ``DownloadOptions/uniqueFileName``, never replacing a
    /// folder, never following a link at the destination.
    func place() throws(NetworkError) -> URL {
        try close()
        let placedAt = try move()
        state.withLock { $0.placed = true }
        return placedAt
    }

    private func move() throws(NetworkError) -> URL {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder), isFolder.boolValue,
           !Self.isLink(destination.path) {
            throw .downloadFailed(.destinationIsAFolder(path: destination.path))
        }
        if options.contains(.removePreviousFile) {
            guard rename(temporaryURL.path, destination.path) == 0 else {
                throw .downloadFailed(.cannotMove(path: destination.path, reason: Self.reason(errno)))
            }
            return destination
        }
        let candidates = options.contains(.uniqueFileName) ? Self.uniqueNames(for: destination) : [destination]
        for candidate in candidates {
            // link() fails when the name is taken, so nothing there is replaced.
            if link(temporaryURL.path, candidate.path) == 0 {
                unlink(temporaryURL.path)
                return candidate
            }
            let error = errno
            if error == EEXIST { continue }
            if error == EPERM || error == ENOTSUP || error == EXDEV || error == EMLINK {
                // No hard links on this file system: check, then rename.
                if Self.exists(candidate.path) { continue }
                guard rename(temporaryURL.path, candidate.path) == 0 else {
                    throw .downloadFailed(.cannotMove(path: candidate.path, reason: Self.reason(errno)))
                }
                return candidate
            }
            throw .downloadFailed(.cannotMove(path: candidate.path, reason: Self.reason(error)))
        }
        throw .downloadFailed(.destinationExists(path: destination.path))
    }

    /// `name.ext`, then `name (2).ext` up to `name (1000).ext`.
    private static func uniqueNames(for url: URL) -> [URL] {
        let folder = url.deletingLastPathComponent()
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().lastPathComponent
        return [url] + (2...1000).map { number in
            folder.appendingPathComponent(ext.isEmpty ? "\(stem) (\(number))" : "\(stem) (\(number)).\(ext)")
        }
    }

    private static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

// MARK: - Names from a server

extension DownloadDestinations {
    /// A file name from a server made safe to use in a folder of yours: only
    /// its last path component, without control characters or leading dots,
    /// at most 255 bytes; `fallback` when nothing usable is left (an empty
    /// name, `.`, `..`, a bare path separator).
    ///
    /// ```swift
    /// DownloadDestinations.safeFileName("../../etc/passwd")  // "passwd"
    /// DownloadDestinations.safeFileName("..")                // "download"
    /// ```
    public static func safeFileName(_ name: String?, fallback: String = "download") -> String {
        guard let name else { return fallback }
        // Split on scalars, not characters: a character may join a separator
        // to the mark before it (U+0604 then "/" is one character), and the
        // separator would stay (found by the Content-Disposition fuzz harness).
        let lastComponent = name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? []
        var cleaned = String(String.UnicodeScalarView(lastComponent.filter { scalar in
            scalar.value >= 0x20 && scalar.value != 0x7F && !(0x80...0x9F).contains(scalar.value)
        }))
        // Dots and spaces together: stripping dots, then spaces, would leave
        // the ".." of ". .." (found by the Content-Disposition fuzz harness).
        while let first = cleaned.unicodeScalars.first, first == "." || first.properties.isWhitespace {
            cleaned.unicodeScalars.removeFirst()
        }
        cleaned = cleaned.trimmingCharacters(in: .whitespaces)
        while cleaned.utf8.count > 255 { cleaned.removeLast() }
        return cleaned.isEmpty ? fallback : cleaned
    }
}
