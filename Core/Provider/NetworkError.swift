import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one error every Courier call throws: what went wrong, in a case you can
/// switch over, with the response and the underlying error attached where
/// there is one.
///
/// ```swift
/// do throws(NetworkError) {
///     let user = try await provider.request(.user(42), decoding: User.self)
/// } catch .statusCode(let response) where response.statusCode == 404 {
///     showNotFound()
/// } catch .noConnection, .serverUnreachable, .timedOut {
///     showOfflineBanner()
/// } catch {
///     print(error) // a sentence that says what happened and what to do
/// }
/// ```
///
/// ## How the error evolves
///
/// The cases of `NetworkError` are fixed within a major version: a new case
/// breaks every exhaustive `switch` a caller wrote, so one is added only in a
/// new major version, and named in its release notes. A new kind of failure
/// within a minor version arrives inside an existing case: as a new value of
/// the reason types (``RedirectFailure``, ``TransferTimeout``,
/// ``ResponseTooLarge/Limit``, ``DownloadFailure``,
/// ``ServerTrustFailure/Reason``), or as a new error type carried by a case
/// that holds `any Error` (``plugin(_:_:)`` carries each plugin's own). Those
/// reason types do grow in minor versions: switch over them with a `default`.
/// The test suite pins the cases, so none is added or removed by accident.
/// No case belongs to a plugin: a plugin's failures are an error type of its
/// own inside ``plugin(_:_:)``, so a new plugin never changes this enum.
public enum NetworkError: Error, Sendable {
    /// The request could not be built (an invalid URL, parameters that cannot
    /// be encoded, an `Encodable` that threw, a refused request). Nothing was
    /// sent.
    case requestBuildFailed(any Error)
    /// The device has no network connection.
    case noConnection(any Error)
    /// The server could not be reached: its host name did not resolve, or it
    /// refused the connection.
    case serverUnreachable(any Error)
    /// The server did not answer within the time-out.
    case timedOut(any Error)
    /// The connection was lost while the request was under way.
    case connectionLost(any Error)
    /// The request was cancelled: its Swift task or its `Cancellable` was
    /// cancelled.
    case cancelled
    /// The response's status code is outside the target's `validationType`.
    case statusCode(Response)
    /// The response could not be mapped to the requested type.
    case mappingFailed(Response, any Error)
    /// A plugin failed for a reason of its own: the first value names the
    /// plugin, the second is the plugin's own error type (CourierAuth's
    /// `AuthPlugin.Failure` when credentials could not be renewed or were
    /// refused, CourierCache's `CachePlugin.Failure`, yours).
    case plugin(String, any Error)
    /// A redirect was not followed: it led to a scheme other than `http` or
    /// `https`, from `https` to `http`, or past the redirect limit.
    case redirectRefused(RedirectFailure)
    /// The response body outgrew its size limit; the transfer was stopped and
    /// nothing of it is kept.
    case responseTooLarge(ResponseTooLarge)
    /// A download arrived but could not be put at its destination.
    case downloadFailed(DownloadFailure)
    /// The server's answer is not valid HTTP (a malformed status line, a
    /// header block too large to read).
    case invalidResponse(any Error)
    /// The HTTPS server's certificate was not trusted (expired, for another
    /// host, from an unknown authority, self-signed, not matching a pin), or
    /// the transport cannot honour the ``ServerTrust`` it was given. Nothing
    /// was sent.
    case serverTrustFailed(ServerTrustFailure)
    /// Any other transport failure (a response that is not HTTP, an error of
    /// a custom transport).
    case transport(any Error)
}

// MARK: - Context

extension NetworkError {
    /// The response, for the cases that have one.
    public var response: Response? {
        switch self {
        case .statusCode(let response), .mappingFailed(let response, _): response
        case .plugin(_, let error as NetworkError): error.response
        default: nil
        }
    }

    /// The error underneath, for the cases that wrap one.
    public var underlyingError: (any Error)? {
        switch self {
        case .requestBuildFailed(let error), .noConnection(let error), .serverUnreachable(let error),
             .timedOut(let error), .connectionLost(let error), .mappingFailed(_, let error),
             .plugin(_, let error), .transport(let error),
             .invalidResponse(let error):
            error
        case .redirectRefused(let failure):
            failure
        case .responseTooLarge(let failure):
            failure
        case .downloadFailed(let failure):
            failure
        case .serverTrustFailed(let failure):
            failure
        case .cancelled, .statusCode:
            nil
        }
    }

    /// Whether the request was cancelled.
    public var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}

// MARK: - Classifying transport errors

extension NetworkError {
    /// Classifies any error from a transport, a plugin or Foundation: a
    /// `NetworkError` stays as it is, `CancellationError` becomes
    /// `.cancelled`, `URLError` and POSIX socket errors become the case that
    /// names their cause, anything else `.transport`.
    ///
    /// Custom transports use this so their errors look like
    /// `URLSessionTransport`'s.
    public init(transportError error: any Error) {
        if let error = error as? NetworkError {
            self = error
        } else if error is CancellationError {
            self = .cancelled
        } else if let error = error as? URLError {
            self = Self.trustFailure(error).map(NetworkError.serverTrustFailed) ?? Self.classify(Self.decodingFailure(error) ?? error)
        } else if let error = error as? POSIXError {
            self = Self.classify(error)
        } else {
            self = .transport(error)
        }
    }

    private static func classify(_ error: URLError) -> NetworkError {
        switch error.code {
        case .cancelled, .userCancelledAuthentication:
            .cancelled
        case .timedOut:
            .timedOut(error)
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive:
            .noConnection(error)
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed:
            .serverUnreachable(error)
        case .networkConnectionLost:
            .connectionLost(error)
        case .badURL, .unsupportedURL:
            .requestBuildFailed(error)
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            .invalidResponse(error)
        default:
            .transport(error)
        }
    }

    /// A certificate failure in a `URLError`: Apple platforms say it with a
    /// code, FoundationNetworking on Linux only with libcurl's sentence
    /// ("SSL certificate problem: certificate has expired") under an unknown
    /// code. Any other TLS failure (a protocol version, an alert) is not a
    /// trust failure and is classified as usual.
    private static func trustFailure(_ error: URLError) -> ServerTrustFailure? {
        let reason: ServerTrustFailure.Reason?
        switch error.code {
        case .serverCertificateHasBadDate: reason = .expired
        case .serverCertificateNotYetValid: reason = .notYetValid
        case .serverCertificateHasUnknownRoot: reason = .untrustedRoot
        case .serverCertificateUntrusted: reason = ServerTrustFailure.reason(inVerificationMessage: message(of: error)) ?? .untrustedRoot
        case .secureConnectionFailed, .unknown: reason = ServerTrustFailure.reason(inVerificationMessage: message(of: error))
        default: reason = nil
        }
        return reason.map { ServerTrustFailure(host: error.failingURL?.host ?? "", reason: $0) }
    }

    /// A body that could not be decoded from its `Content-Encoding`:
    /// FoundationNetworking on Linux says it only with libcurl's sentence
    /// ("Error while processing content unencoding: invalid block type")
    /// under an unknown code; it becomes the code Apple platforms use.
    private static func decodingFailure(_ error: URLError) -> URLError? {
        let message = message(of: error)
        guard error.code == .unknown, message.hasPrefix("Error while processing content unencoding") else { return nil }
        var userInfo = (error as NSError).userInfo
        userInfo[NSUnderlyingErrorKey] = error
        return URLError(.cannotDecodeContentData, userInfo: userInfo)
    }

    private static func message(of error: URLError) -> String {
        (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? ""
    }

    private static func classify(_ error: POSIXError) -> NetworkError {
        switch error.code {
        case .ECONNREFUSED, .EHOSTUNREACH, .EHOSTDOWN:
            .serverUnreachable(error)
        case .ENETUNREACH, .ENETDOWN:
            .noConnection(error)
        case .ETIMEDOUT:
            .timedOut(error)
        case .ECONNRESET, .EPIPE, .ECONNABORTED, .ENOTCONN:
            .connectionLost(error)
        case .ECANCELED:
            .cancelled
        default:
            .transport(error)
        }
    }
}

// MARK: - Descriptions

extension NetworkError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .requestBuildFailed(let error):
            "The request could not be built, so nothing was sent: \(error). Check the target's URL, parameters and body."
        case .noConnection(let error):
            "The device is offline (\(Self.detail(error))). Check the network connection and try again."
        case .serverUnreachable(let error):
            "The server could not be reached (\(Self.detail(error))). Check the base URL and that the server is running."
        case .timedOut(let error):
            "The server did not answer in time (\(Self.detail(error))). Try again, or raise the target's timeout."
        case .connectionLost(let error):
            "The connection was lost during the request (\(Self.detail(error))). Try again; the server may have closed it."
        case .cancelled:
            "The request was cancelled before it finished."
        case .statusCode(let response):
            "The server answered \(response.statusCode)\(Self.url(response)), which the target's validation does not accept. "
                + "The response is attached as error.response."
        case .mappingFailed(let response, let error):
            "The response\(Self.url(response)) (status \(response.statusCode), \(response.data.count) bytes) could not be mapped: \(error)."
        case .plugin(let name, let error):
            "The plugin \(name) failed: \(error)." + ((error as? any LocalizedError)?.recoverySuggestion.map { " " + $0 } ?? "")
        case .redirectRefused(let failure):
            "A redirect was not followed: \(failure)."
        case .responseTooLarge(let failure):
            "The response was stopped: \(failure)."
        case .downloadFailed(let failure):
            "The download could not be saved: \(failure)."
        case .serverTrustFailed(let failure):
            "The server was not trusted, so nothing was sent: \(failure)."
        case .invalidResponse(let error as URLError) where error.code == .cannotDecodeContentData:
            "The response body could not be decoded from its Content-Encoding (\(Self.detail(error))): the server sent bytes that "
                + "are not what the header says, or a stream cut short. To receive the bytes as sent, turn "
                + "TransferConfiguration.decodesContent off."
        case .invalidResponse(let error as RefusedContentEncoding):
            "The answer was refused before its body was read: \(error). URLSession would decode it before any size limit is "
                + "counted, so a small compressed body could fill the memory. Use AsyncHTTPClientTransport, which decodes "
                + "under the limits, or, for a server you trust, create URLSessionTransport with decodesCompressedResponses: true."
        case .invalidResponse(let error):
            "The server's answer is not valid HTTP (\(Self.detail(error))). The server or a proxy in between is misbehaving."
        case .transport(let error):
            "The request failed in the transport: \(Self.detail(error))."
        }
    }

    public var errorDescription: String? { description }

    private static func detail(_ error: any Error) -> String {
        if let error = error as? URLError {
            let url = error.failingURL.map { " for \(URLRedactor.summary($0))" } ?? ""
            // Only a decoding failure's reason: Courier's transports write it
            // (without the URL's query), or libcurl does (without any URL).
            let reason = error.code == .cannotDecodeContentData ? message(of: error) : ""
            return "URLError \(error.code.rawValue)\(url)" + (reason.isEmpty ? "" : ": \(reason)")
        }
        return String(describing: error)
    }

    private static func url(_ response: Response) -> String {
        guard let url = response.request?.url ?? response.response?.url else { return "" }
        return " from \(URLRedactor.summary(url))"
    }
}

// MARK: - NSError bridging

/// `NetworkError` bridges to `NSError` (for Objective-C, analytics and crash
/// reporters) with a stable domain, one code per case, its description, the
/// underlying error under `NSUnderlyingErrorKey`, and the response's status
/// under ``statusCodeUserInfoKey`` when there is one.
extension NetworkError: CustomNSError {
    /// The `NSError` domain of every `NetworkError`.
    public static let errorDomain = "Courier.NetworkError"

    /// The `userInfo` key of the HTTP status, for errors that carry a response.
    public static let statusCodeUserInfoKey = "CourierStatusCode"

    /// One code per case, stable across releases. A retired case's code is
    /// never given to another (9 was `authenticationFailed`, which became
    /// CourierAuth's own error, carried by ``plugin(_:_:)``).
    public var errorCode: Int {
        switch self {
        case .requestBuildFailed: 1
        case .noConnection: 2
        case .serverUnreachable: 3
        case .timedOut: 4
        case .connectionLost: 5
        case .cancelled: 6
        case .statusCode: 7
        case .mappingFailed: 8
        case .plugin: 10
        case .redirectRefused: 11
        case .responseTooLarge: 12
        case .downloadFailed: 13
        case .invalidResponse: 14
        case .transport: 15
        case .serverTrustFailed: 16
        }
    }

    /// The case's name, such as `"timedOut"` or `"statusCode"`: a short label
    /// from a fixed set, for metrics dimensions, trace attributes and logs.
    public var caseName: String {
        switch self {
        case .requestBuildFailed: "requestBuildFailed"
        case .noConnection: "noConnection"
        case .serverUnreachable: "serverUnreachable"
        case .timedOut: "timedOut"
        case .connectionLost: "connectionLost"
        case .cancelled: "cancelled"
        case .statusCode: "statusCode"
        case .mappingFailed: "mappingFailed"
        case .plugin: "plugin"
        case .redirectRefused: "redirectRefused"
        case .responseTooLarge: "responseTooLarge"
        case .downloadFailed: "downloadFailed"
        case .invalidResponse: "invalidResponse"
        case .transport: "transport"
        case .serverTrustFailed: "serverTrustFailed"
        }
    }

    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlyingError {
            userInfo[NSUnderlyingErrorKey] = Self.withoutSecrets(underlyingError as NSError)
        }
        if let response {
            userInfo[Self.statusCodeUserInfoKey] = response.statusCode
        }
        return userInfo
    }

    /// `error` with every failing URL in it (its own and those of the errors
    /// under it) cut to what ``URLRedactor/summary(_:)`` keeps: a crash reporter that
    /// records the `userInfo` must not record a token in a query.
    private static func withoutSecrets(_ error: NSError, depth: Int = 0) -> NSError {
        var info = error.userInfo
        var changed = false
        if let url = info[NSURLErrorFailingURLErrorKey] as? URL {
            info[NSURLErrorFailingURLErrorKey] = URLRedactor.removingSecrets(from: url)
            changed = true
        }
        // The key of the failing URL as text (`NSURLErrorFailingURLStringErrorKey`,
        // deprecated but still filled in by Foundation).
        let failingURLStringKey = "NSErrorFailingURLStringKey"
        if let text = info[failingURLStringKey] as? String {
            info[failingURLStringKey] = URLRedactor.summary(urlString: text)
            changed = true
        }
        if depth < 8, let inner = info[NSUnderlyingErrorKey] as? NSError {
            info[NSUnderlyingErrorKey] = withoutSecrets(inner, depth: depth + 1)
            changed = true
        }
        return changed ? NSError(domain: error.domain, code: error.code, userInfo: info) : error
    }
}
