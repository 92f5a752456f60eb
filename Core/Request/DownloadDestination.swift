import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Chooses where a downloaded file goes, given a name for the file on its way
/// and the server's response head. Called once the head arrives; the body is
/// written to a 0600 temporary file next to the destination and moved there
/// only once it has arrived whole with a status the target's validation
/// accepts, before the plugins see the response.
///
/// The temporary URL it is given (in the system's temporary folder) is a name
/// only, kept for Moya's signature: the file is made next to the destination
/// this closure returns, so that the move is a rename on one volume. Derive
/// the destination from the response or your own folder, not from it.
///
/// A name that comes from the server is hostile until checked: pass it
/// through ``DownloadDestinations/safeFileName(_:fallback:)``, as
/// ``DownloadDestinations/suggestedFile(in:)`` does.
///
/// ```swift
/// let destination: DownloadDestination = { _, response in
///     let name = DownloadDestinations.safeFileName(response.suggestedFilename)
///     return (URL.documentsDirectory.appendingPathComponent(name), [.uniqueFileName])
/// }
/// ```
public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse)
    -> (destinationURL: URL, options: DownloadOptions)

/// What to do at a download's destination when the file is moved there.
public struct DownloadOptions: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Creates the folders leading to the destination (0700).
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
    /// Replaces a file already at the destination, atomically. A folder is
    /// never replaced.
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
    /// When a file is already at the destination, keeps it and saves the
    /// download as `name (2).ext`, `name (3).ext`, and so on.
    public static let uniqueFileName = DownloadOptions(rawValue: 1 << 2)
}

/// Ready-made destinations.
public enum DownloadDestinations {
    /// The file at `url`, replacing what was there and creating its folder.
    public static func file(_ url: URL) -> DownloadDestination {
        { _, _ in (url, [.createIntermediateDirectories, .removePreviousFile]) }
    }

    /// A file in `directory` named after the response's `Content-Disposition`
    /// (or the URL), made safe by ``safeFileName(_:fallback:)``. It never
    /// leaves `directory` and never replaces a file there: a name already taken
    /// gets a number.
    public static func suggestedFile(in directory: URL) -> DownloadDestination {
        { _, response in
            let urlName = response.url.map { safeFileName($0.lastPathComponent) }
            let name = safeFileName(response.suggestedFilename, fallback: urlName ?? "download")
            return (directory.appendingPathComponent(name), [.createIntermediateDirectories, .uniqueFileName])
        }
    }
}
