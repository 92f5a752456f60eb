import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Chooses where a downloaded file goes, given the temporary file it was
/// streamed to and the server's response.
///
/// ```swift
/// let destination: DownloadDestination = { _, response in
///     let folder = URL.documentsDirectory
///     return (folder.appendingPathComponent(response.suggestedFilename ?? "download"), [.removePreviousFile])
/// }
/// ```
public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: HTTPURLResponse)
    -> (destinationURL: URL, options: DownloadOptions)

/// What to do at a download's destination before the file is moved there.
public struct DownloadOptions: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Creates the folders leading to the destination.
    public static let createIntermediateDirectories = DownloadOptions(rawValue: 1 << 0)
    /// Replaces a file already at the destination.
    public static let removePreviousFile = DownloadOptions(rawValue: 1 << 1)
}

/// Ready-made destinations.
public enum DownloadDestinations {
    /// The file at `url`, replacing what was there and creating its folder.
    public static func file(_ url: URL) -> DownloadDestination {
        { _, _ in (url, [.createIntermediateDirectories, .removePreviousFile]) }
    }

    /// A file named after the response (or the URL) in `directory`.
    public static func suggestedFile(in directory: URL) -> DownloadDestination {
        { temporaryURL, response in
            let name = response.suggestedFilename ?? temporaryURL.lastPathComponent
            return (directory.appendingPathComponent(name), [.createIntermediateDirectories, .removePreviousFile])
        }
    }
}
