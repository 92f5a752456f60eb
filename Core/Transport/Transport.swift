import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one seam between Courier and the network: sends a request and returns
/// the response, whatever its status code.
///
/// ``URLSessionTransport`` is the default; `CourierAsyncHTTPClient` adds one on
/// AsyncHTTPClient. Write your own to run requests through another client, or
/// to answer from memory in tests.
///
/// ## When to use a transport and when a plugin
/// A transport moves bytes. Anything about *what* is sent or *how* a response
/// is treated (headers, tokens, logging, caching, retrying, decompressing)
/// belongs in a ``Plugin``, so it works on every transport.
///
/// ## Implementation requirements
/// - Return a ``Response`` for any HTTP status; only failures to get one throw.
/// - Throw errors classified as ``NetworkError/init(transportError:)`` does.
/// - Honour Swift task cancellation: stop the transfer and throw
///   ``NetworkError/cancelled``.
/// - Honour ``TransportRequest/timeout``, ``TransportRequest/uploadFile``,
///   ``TransportRequest/downloadDestination`` and report
///   ``TransportRequest/progress`` in order.
/// - Hand over bodies decoded: if the client decompresses a body itself, remove
///   the `Content-Encoding` header so no plugin decodes it twice.
/// - Be safe to call from many tasks at once.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response.
    /// - Throws: ``NetworkError`` when no response arrives.
    func send(_ request: TransportRequest) async throws -> Response
}

/// A request as a transport receives it: the `URLRequest` plus what does not
/// fit in one (a body file, a download destination, a progress handler).
public struct TransportRequest: Sendable {
    /// The request: URL, method, header fields and, unless ``uploadFile`` is
    /// set, the body.
    public var urlRequest: URLRequest
    /// A file to send as the body, streamed from disk.
    public var uploadFile: URL?
    /// Where to stream the response body, for downloads.
    public var downloadDestination: DownloadDestination?
    /// The time-out in seconds; `nil` means the transport's own.
    public var timeout: TimeInterval?
    /// Receives upload and download progress.
    public var progress: ProgressHandler?

    public init(
        urlRequest: URLRequest,
        uploadFile: URL? = nil,
        downloadDestination: DownloadDestination? = nil,
        timeout: TimeInterval? = nil,
        progress: ProgressHandler? = nil
    ) {
        self.urlRequest = urlRequest
        self.uploadFile = uploadFile
        self.downloadDestination = downloadDestination
        self.timeout = timeout
        self.progress = progress
    }
}
