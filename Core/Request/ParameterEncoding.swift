import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes ``Parameters`` into a `URLRequest`: into its query string, or as its
/// body with a matching `Content-Type`.
///
/// Courier ships ``URLEncoding`` and ``JSONEncoding``; conform your own type to
/// write another format.
///
/// ## Implementation requirements
/// Leave a `Content-Type` the request already has in place. Throw when the
/// parameters cannot be written; the provider reports it as
/// ``NetworkError/requestBuildFailed(_:)`` and sends nothing.
public protocol ParameterEncoding: Sendable {
    /// Returns `request` with `parameters` written into it.
    /// - Throws: When the parameters cannot be written in this encoding.
    func encode(_ request: URLRequest, with parameters: Parameters?) throws -> URLRequest
}

/// Why a request could not be built. Reaches callers inside
/// ``NetworkError/requestBuildFailed(_:)``.
public enum RequestBuildFailure: Error, Sendable, CustomStringConvertible {
    /// The endpoint's URL string is not a valid URL.
    case invalidURL(String)
    /// The request has no URL to write parameters into.
    case missingURL
    /// The parameters hold a value JSON cannot represent.
    case invalidJSONParameters(String)
    /// An `Encodable` body threw while encoding.
    case encodingFailed(any Error)
    /// A multipart part could not be read or written.
    case multipart(String)
    /// The request closure refused the request.
    case refused(String)
    /// The file to upload does not exist or cannot be read.
    case unreadableUploadFile(String)
    /// The request's body stream (an `httpBodyStream`, or the sequence of a
    /// ``RequestBodyStream``) failed while it was read.
    case unreadableBodyStream(String)
    /// A ``RequestBodyStream`` yielded a different number of bytes than its
    /// known length.
    case bodyStreamLength(expected: Int64, produced: Int64)
    /// A one-shot ``RequestBodyStream`` was to be sent a second time (by a
    /// plugin replaying the request).
    case bodyStreamAlreadyRead
    /// The request's URL is not an `http` or `https` URL with a host.
    case unsupportedURL(String)
    /// A task's body parameters would have gone into the URL: the body
    /// encoding of `requestCompositeParameters` writes to the query string.
    case bodyParametersInURL(String)
    /// A download task was asked for as a stream: a download writes its body
    /// to a file, a stream hands it to the caller.
    case streamedDownload

    public var description: String {
        switch self {
        case .streamedDownload:
            "a download task cannot be streamed; call request(_:) to download it to its destination, "
                + "or give the target a plain task to read its body with stream(_:)"
        case .invalidURL(let url):
            "“\(URLRedactor.summary(urlString: url))” is not a valid URL; check the target's baseURL and path"
        case .missingURL:
            "the request has no URL to add parameters to"
        case .invalidJSONParameters(let detail):
            "the parameters cannot be written as JSON (\(detail)); use strings, numbers, booleans, arrays and dictionaries"
        case .encodingFailed(let error):
            "the body could not be encoded: \(error)"
        case .multipart(let detail):
            "the multipart body could not be built: \(detail)"
        case .refused(let reason):
            "the request closure refused the request: \(reason)"
        case .unreadableUploadFile(let path):
            "the upload file \(path) does not exist or cannot be read"
        case .unreadableBodyStream(let reason):
            "the request's body stream could not be read (\(reason))"
        case .bodyStreamLength(let expected, let produced):
            "the request's body stream was announced as \(expected) bytes but "
                + (produced > expected ? "yielded more" : "ended after \(produced)")
                + "; give RequestBodyStream the exact length, or .unknown to send it chunked"
        case .bodyStreamAlreadyRead:
            "the request's body is a stream that can be read once and was already sent; "
                + "a plugin that sends a request again should check RequestContext.isBodyReplayable, "
                + "or give RequestBodyStream iterationBehavior .multiple if its sequence can be read again"
        case .unsupportedURL(let scheme):
            "only http and https URLs can be sent, not \(scheme)"
        case .bodyParametersInURL(let method):
            "requestCompositeParameters' body encoding would put the body parameters in the query string of this "
                + "\(method) request; use URLEncoding.httpBody or JSONEncoding for the body, and urlParameters for the query"
        }
    }
}
