import Foundation

/// Why a redirect was not followed; the error of
/// ``NetworkError/redirectRefused(_:)``.
public enum RedirectFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// More redirects than ``TransferConfiguration/Redirects/maximum`` in one call.
    case tooManyRedirects(Int)
    /// The `Location` leads to a scheme other than `http` or `https` (a Unix
    /// socket, a local file, FTP).
    case unsupportedScheme(String)
    /// The `Location` leads from `https` to plain `http`.
    case insecureDowngrade
    /// The `Location` is not a URL with a host.
    case invalidLocation
    /// A redirect that keeps the body (307, 308) leads to another origin,
    /// and ``TransferConfiguration/Redirects/allowsBodyToOtherOrigins`` is
    /// `false`.
    case bodyToAnotherOrigin
    /// ``TransferConfiguration/Redirects/decide`` refused the redirect, a
    /// response with this status code.
    case refusedByPolicy(statusCode: Int)

    public var description: String {
        switch self {
        case .tooManyRedirects(let limit):
            "more than \(limit) redirects; the server may be redirecting in a loop"
        case .unsupportedScheme(let scheme):
            "the server redirected to a \(scheme): URL; only http and https redirects are followed"
        case .insecureDowngrade:
            "the server redirected from https to plain http; set TransferConfiguration.redirects.allowsInsecureDowngrade to follow it"
        case .invalidLocation:
            "the server redirected to a Location that is not a URL with a host"
        case .bodyToAnotherOrigin:
            "the server redirected the request's body to another origin; "
                + "set TransferConfiguration.redirects.allowsBodyToOtherOrigins to send it there"
        case .refusedByPolicy(let statusCode):
            "the redirect policy's decide closure refused a \(statusCode) redirect"
        }
    }
}

/// A transfer that ran out of time; the error of ``NetworkError/timedOut(_:)``
/// when the transfer stage stopped it.
public enum TransferTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was sent or received for this many seconds.
    case idle(TimeInterval)
    /// The whole call took longer than its deadline, in seconds, however
    /// steadily bytes were moving.
    case deadline(TimeInterval)
    /// A server-sent event stream brought no event for this many seconds,
    /// though bytes may have come (comments, fields of an event never ended).
    case betweenEvents(TimeInterval)

    public var description: String {
        switch self {
        case .idle(let seconds):
            "nothing was sent or received for \(Self.format(seconds)) s; raise the target's timeout if the server is slow"
        case .deadline(let seconds):
            "the transfer took longer than its \(Self.format(seconds)) s deadline; raise the target's or provider's deadline"
        case .betweenEvents(let seconds):
            "no server-sent event arrived for \(Self.format(seconds)) s, whatever else the server sent; "
                + "raise maximumTimeBetweenEvents if the server is quiet on purpose"
        }
    }

    private static func format(_ seconds: TimeInterval) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}

/// A response body larger than its limit; the error of
/// ``NetworkError/responseTooLarge(_:)``.
public struct ResponseTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which limit was exceeded.
    public enum Limit: Sendable, Equatable {
        /// ``TransferConfiguration/Limits/maximumBodySize`` or the target's
        /// ``TargetType/maximumResponseSize``, for bodies kept in memory.
        case memory
        /// ``TransferConfiguration/Limits/maximumDownloadSize`` or the target's
        /// ``TargetType/maximumResponseSize``, for downloads.
        case download
        /// ``StreamOptions/maximumBytes`` or the target's
        /// ``TargetType/maximumResponseSize``, for a streamed body's bytes in
        /// all.
        case stream
        /// The longest line, event or JSON text a view of a streamed body
        /// accepts (see ``StreamedResponse/lines(maximumLength:)``).
        case element
        /// The most unread bytes a transport that cannot pause its client
        /// holds for a reader that falls behind
        /// (``URLSessionTransport/maximumUnreadBytes``).
        case readAhead
    }

    /// Which limit was exceeded.
    public let limit: Limit
    /// The limit in bytes (of the decoded body, when the client decoded it).
    public let bytes: Int64

    /// Describes an exceeded limit.
    /// - Parameters:
    ///   - limit: Which limit was exceeded.
    ///   - bytes: The limit in bytes.
    public init(limit: Limit, bytes: Int64) {
        self.limit = limit
        self.bytes = bytes
    }

    public var description: String {
        switch limit {
        case .memory:
            "the response body is larger than the \(bytes)-byte limit for bodies kept in memory; "
                + "download it to a file, or raise the target's maximumResponseSize or the provider's limits.maximumBodySize"
        case .download:
            "the download is larger than its \(bytes)-byte limit; raise the target's maximumResponseSize or the provider's limits.maximumDownloadSize"
        case .stream:
            "the streamed body passed its \(bytes)-byte limit; raise StreamOptions.maximumBytes or the target's maximumResponseSize"
        case .element:
            "a line, event or JSON text of the streamed body is longer than \(bytes) bytes, the view's limit; "
                + "the server may never be ending it, or raise the view's maximumLength (maximumEventSize for events)"
        case .readAhead:
            "the reader fell \(bytes) bytes behind a transport that cannot pause the transfer (URLSession on Linux); "
                + "read faster, raise URLSessionTransport's maximumUnreadBytes, or use a transport that waits for its reader "
                + "(AsyncHTTPClientTransport)"
        }
    }
}

/// A body that ended before the length its `Content-Length` announced; the
/// error of ``NetworkError/connectionLost(_:)``.
public struct IncompleteBody: Error, Sendable, Equatable, CustomStringConvertible {
    /// The length the server announced.
    public let expected: Int64
    /// The bytes that arrived.
    public let received: Int64

    public var description: String {
        "the server announced \(expected) bytes but closed the connection after \(received)"
    }
}

/// Why a download could not be put in place; the error of
/// ``NetworkError/downloadFailed(_:)``. The file that was at the destination
/// before, if any, is untouched unless the failure says otherwise.
public enum DownloadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The temporary file next to the destination could not be created.
    case cannotCreateTemporaryFile(path: String, reason: String)
    /// Writing the body to disk failed.
    case writeFailed(reason: String)
    /// A file is at the destination and the destination's options do not
    /// allow replacing it.
    case destinationExists(path: String)
    /// A folder is at the destination.
    case destinationIsAFolder(path: String)
    /// Moving the finished file into place failed.
    case cannotMove(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotCreateTemporaryFile(let path, let reason):
            "cannot create the temporary download file \(path) (\(reason)); check that the folder exists and is writable"
        case .writeFailed(let reason):
            "writing the download to disk failed (\(reason)); check free space"
        case .destinationExists(let path):
            "a file is already at \(path); pass .removePreviousFile to replace it or .uniqueFileName to keep both"
        case .destinationIsAFolder(let path):
            "a folder is at \(path), where the download was to go; choose a file name"
        case .cannotMove(let path, let reason):
            "cannot move the download to \(path) (\(reason)); check that the folder is writable"
        }
    }
}

/// A compressed answer a transport refused at its head, before reading its
/// body; the error of ``NetworkError/invalidResponse(_:)``.
///
/// ``URLSessionTransport`` asks for `identity` and refuses a body the server
/// compresses anyway, unless created with `decodesCompressedResponses`:
/// `URLSession` decodes such a body itself, ahead of the transfer stage, where
/// no size limit applies (a gigabyte of zeros fits in a megabyte of gzip).
public struct RefusedContentEncoding: Error, Sendable, Equatable, CustomStringConvertible {
    /// The response's `Content-Encoding`, as the server sent it.
    public let contentEncoding: String

    public var description: String {
        "the server compressed its answer (Content-Encoding: \(contentEncoding)) though the request asked for identity"
    }
}
