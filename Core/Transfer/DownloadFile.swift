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
    private let state = Locked(DownloadFileStateMachine())

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
        guard state.withLock({ $0.acceptsWrites }) else { throw .downloadFailed(.writeFailed(reason: "the file was closed before this chunk")) }
        do {
            try handle.write(contentsOf: chunk)
        } catch {
            throw .downloadFailed(.writeFailed(reason: String(describing: error)))
        }
    }

    func close() throws(NetworkError) {
        guard state.withLock({ $0.close() }) else { return }
        try closeHandle()
    }

    /// Removes the temporary file unless it was placed.
    func discard() {
        guard case .remove(let closing) = state.withLock({ $0.discard() }) else { return }
        if closing { try? closeHandle() }
        unlink(temporaryURL.path)
    }

    /// Moves the file to its destination and returns where it went: replacing
    /// a file there only with ``DownloadOptions/removePreviousFile``, choosing
    /// a free name with ``DownloadOptions/uniqueFileName``, never replacing a
    /// folder, never following a link at the destination. Placing it again
    /// returns the same place.
    func place() throws(NetworkError) -> URL {
        switch state.withLock({ $0.place() }) {
        case .alreadyPlaced(let url):
            return url
        case .refuse:
            throw .downloadFailed(.writeFailed(reason: "the download was discarded, or is being placed"))
        case .move(let closing):
            do throws(NetworkError) {
                if closing { try closeHandle() }
                let placedAt = try move()
                state.withLock { $0.moved(to: placedAt) }
                return placedAt
            } catch {
                if state.withLock({ $0.moveFailed() }) { unlink(temporaryURL.path) }
                throw error
            }
        }
    }

    private func closeHandle() throws(NetworkError) {
        do {
            try handle.close()
        } catch {
            throw .downloadFailed(.writeFailed(reason: String(describing: error)))
        }
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

// MARK: - The state machine

/// The life of a download's temporary file: open while the body is written,
/// closed once it is whole, then moved to its destination (placing) and
/// placed, or discarded. Each transition says what to do with the handle and
/// the file, so the handle is closed once, the file is moved once, and a
/// placed file is never removed.
///
/// The transfer stage writes, places and discards in that order; the states
/// also settle calls that overlap. A write is checked, not held, under the
/// lock: a write that overlaps closing may reach a file being closed, and
/// fails there with the handle's error.
struct DownloadFileStateMachine: Equatable, Sendable {
    enum Phase: Equatable, Sendable {
        case open, closed
        /// Being moved; `discardRequested` once a discard came meanwhile.
        case placing(discardRequested: Bool)
        case placed(URL)
        case discarded
    }

    private(set) var phase = Phase.open

    /// Whether a chunk may be written: only while the file is open.
    var acceptsWrites: Bool { phase == .open }

    /// Closes the file; `true` when its handle is to be closed now.
    mutating func close() -> Bool {
        guard phase == .open else { return false }
        phase = .closed
        return true
    }

    enum PlaceAction: Equatable {
        /// Move the file to its destination, closing its handle first if
        /// it was still open, then report ``moved(to:)`` or ``moveFailed()``.
        case move(closingHandle: Bool)
        /// It was placed already, there.
        case alreadyPlaced(URL)
        /// It was discarded, or another call is placing it.
        case refuse
    }

    mutating func place() -> PlaceAction {
        switch phase {
        case .open:
            phase = .placing(discardRequested: false)
            return .move(closingHandle: true)
        case .closed:
            phase = .placing(discardRequested: false)
            return .move(closingHandle: false)
        case .placed(let url):
            return .alreadyPlaced(url)
        case .placing, .discarded:
            return .refuse
        }
    }

    /// The file is at `url`: from now on nothing removes it, whatever
    /// discard came meanwhile.
    mutating func moved(to url: URL) {
        if case .placing = phase { phase = .placed(url) }
    }

    /// The move failed and the file is still where it was written; `true`
    /// when a discard came meanwhile, so it is to be removed now.
    mutating func moveFailed() -> Bool {
        guard case .placing(let discardRequested) = phase else { return false }
        phase = discardRequested ? .discarded : .closed
        return discardRequested
    }

    enum DiscardAction: Equatable {
        /// It was placed or discarded already, or is being placed (the move
        /// removes it if it fails).
        case none
        /// Remove the temporary file, closing its handle first if it was
        /// still open.
        case remove(closingHandle: Bool)
    }

    mutating func discard() -> DiscardAction {
        switch phase {
        case .open:
            phase = .discarded
            return .remove(closingHandle: true)
        case .closed:
            phase = .discarded
            return .remove(closingHandle: false)
        case .placing:
            phase = .placing(discardRequested: true)
            return .none
        case .placed, .discarded:
            return .none
        }
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
