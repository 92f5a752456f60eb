import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one seam between Courier and the network: sends one request and returns
/// the response head with its body, whatever the status code.
///
/// A transport only moves bytes. Everything else — following redirects, idle
/// time-outs and deadlines, size limits, writing downloads to disk, progress,
/// and turning failures into ``NetworkError`` — happens once, in Courier's
/// transfer stage, for every transport alike. ``URLSessionTransport`` is the
/// default; `CourierAsyncHTTPClient` adds one on AsyncHTTPClient; a test can
/// answer from memory in a dozen lines:
///
/// ```swift
/// struct CannedTransport: Transport {
///     func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
///         TransportResponse(statusCode: 200, url: request.url, headerFields: ["Content-Type": "text/plain"],
///                           body: ResponseBody(Data("hello".utf8)))
///     }
/// }
/// ```
///
/// ## When to use a transport and when a plugin
/// A transport moves bytes. Anything about *what* is sent or *how* a response
/// is treated (headers, tokens, logging, caching, retrying, decompressing)
/// belongs in a ``Plugin``, so it works on every transport.
///
/// ## Implementation requirements
/// - Send exactly one request: never follow a redirect (return the 3xx
///   response), never retry, never answer an authentication challenge.
/// - Return as soon as the response head is known. A client that reports
///   the response in callbacks feeds a ``ResponseExchange`` with them (the
///   head, each part of the body, the end or the failure) and returns its
///   ``ResponseExchange/response(_:)``: it tells the transfer of the head,
///   counts a body kept in memory against its limit as it arrives, and hands
///   the body on whole or as it arrives, as ``TransportRequest/collectsBody``
///   asks. A client that can wait for the reader passes each part's
///   `whenConsumed` and reads on only after it runs; one that cannot has
///   every part counted as it arrives. A transport that answers from memory
///   returns a whole ``ResponseBody``, whose limit the transfer stage checks.
/// - Report request body bytes sent with ``TransferControl/didSend(_:of:)``.
/// - Register with ``TransferControl/onAbort(_:)`` how to stop the transfer:
///   the transfer stage calls it for time-outs, limits and Swift task
///   cancellation, and classifies the failure itself.
/// - Throw other failures as ``NetworkError/init(transportError:)`` classifies
///   them (a `URLError` or `POSIXError` for the cause).
/// - Send ``TransportRequest/acceptEncoding`` as the `Accept-Encoding`
///   field unless the request names one.
/// - Undo a `gzip` or `deflate` `Content-Encoding` when
///   ``TransportRequest/decodesContent`` asks for it, and mark
///   ``TransportResponse/contentDecoded`` whenever the body was decoded.
/// - Send ``TransportRequest/bodyStream`` as it is read, if
///   ``sendsStreamedBodies`` says so: a chunk at a time, each read only
///   when the connection has taken the one before, and fail with the error
///   its reader throws.
/// - Be safe to call from many tasks at once.
public protocol Transport: Sendable {
    /// Sends `request` once and returns the response head and body.
    /// - Throws: ``NetworkError`` when no response head arrives.
    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse

    /// Whether this transport sends a ``RequestBodyStream`` as it is read
    /// (``TransportRequest/bodyStream``). When `false`, the default, the
    /// provider reads such a body whole first and hands it over in memory or
    /// in a file, as every other body.
    var sendsStreamedBodies: Bool { get }
}

extension Transport {
    /// `false`: the provider reads a streamed body whole before sending it.
    public var sendsStreamedBodies: Bool { false }
}

/// One request as a transport receives it, built once by the transfer stage
/// from the `URLRequest` that left the plugins.
public struct TransportRequest: Sendable {
    /// The request: URL, method, header fields and, unless ``uploadFile`` is
    /// set, the body in `httpBody` (never an `httpBodyStream`: the transfer
    /// stage reads a stream into memory or a file first, so that it can be
    /// replayed). Its `timeoutInterval` is the idle time-out, which the
    /// transfer stage enforces; a transport may hand it to its client as well.
    public let urlRequest: URLRequest
    /// A file to send as the body, streamed from disk.
    public let uploadFile: URL?
    /// A body to send as it is read, only for a transport whose
    /// ``Transport/sendsStreamedBodies`` is `true`: with `Content-Length`
    /// when ``RequestBodyStream/knownLength`` is set, chunked otherwise.
    public let bodyStream: RequestBodyStream?
    /// The size of the body in bytes, from memory, the file or the stream's
    /// known length (0 for a stream of unknown length).
    public let bodyLength: Int64
    /// Whether the body will be kept in memory with nothing reported about
    /// its progress: the transport may collect it whole before returning.
    public let collectsBody: Bool
    /// Whether the body goes to the caller of a streamed call, who may read
    /// it slowly. The transfer stage reads every other body itself, as it
    /// arrives (into memory, or to a file); a transport that cannot wait for
    /// its reader still bounds what it holds unread of a download, since a
    /// disk or a busy machine can hold that reader up too, and a download's
    /// limit counts only what was written (`URLSessionTransport`'s
    /// `maximumUnreadBytes`).
    public let handsBodyToCaller: Bool
    /// Where the transport reports activity and learns that it must stop.
    public let control: TransferControl
    /// Whether to hand the body over with its `gzip` or `deflate`
    /// `Content-Encoding` undone (``TransferConfiguration/decodesContent``).
    /// A transport that decodes hands the decoded bytes on (to its
    /// ``ResponseExchange``, which counts them as it counts any body), and marks
    /// ``TransportResponse/contentDecoded``; one whose client cannot be
    /// told (`URLSession` on Linux decodes always) says so in its
    /// documentation.
    public let decodesContent: Bool
    /// The `Accept-Encoding` to send when ``urlRequest`` names none: what
    /// the transfer decodes (`gzip, deflate`), or `identity` for a streamed
    /// call (a compressor holds back what has not filled a block) and when
    /// nothing is decoded. It is a field of its own, added by the transport
    /// where it writes the head, so the request the plugins and
    /// `Response.request` see holds only what the target and the plugins
    /// set, and no request is copied to add it.
    public let acceptEncoding: String
    /// The request's URL, read from ``urlRequest`` once (transports read it
    /// several times, and on Linux each read of a `URLRequest` property goes
    /// through the reference type behind it).
    public let url: URL

    /// Creates a request, for transports that wrap another one and for tests;
    /// without `acceptEncoding`, it asks for what `decodesContent` decodes,
    /// and for `identity` when the body goes to the caller as it arrives.
    public init(urlRequest: URLRequest, uploadFile: URL? = nil, bodyStream: RequestBodyStream? = nil, bodyLength: Int64? = nil,
                collectsBody: Bool = true, handsBodyToCaller: Bool = false, control: TransferControl = TransferControl(),
                decodesContent: Bool = true, acceptEncoding: String? = nil) {
        self.urlRequest = urlRequest
        self.uploadFile = uploadFile
        self.bodyStream = bodyStream
        self.bodyLength = bodyLength ?? bodyStream?.knownLength ?? Int64(urlRequest.httpBody?.count ?? 0)
        self.collectsBody = collectsBody
        self.handsBodyToCaller = handsBodyToCaller
        self.control = control
        self.decodesContent = decodesContent
        self.acceptEncoding = acceptEncoding ?? (decodesContent && !handsBodyToCaller ? "gzip, deflate" : "identity")
        // The transfer stage only sends requests whose URL is set.
        self.url = urlRequest.url ?? URL(fileURLWithPath: "/")
    }

    /// The request's method, `GET` when unset.
    public var method: String { urlRequest.httpMethod ?? "GET" }
}

/// A response head and its body, as a transport returns it.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var statusCode: Int
    /// The URL the response came from.
    public var url: URL
    /// The header fields, repeated fields joined with ", ".
    public var headerFields: [String: String] {
        get { fields.dictionary }
        set { fields = HeaderFieldList(newValue) }
    }
    /// The header fields as the transport handed them over: its dictionary,
    /// or the head's pairs in order (see `HeaderFieldList`).
    var fields: HeaderFieldList
    /// The body, whole or as a stream of chunks.
    public var body: ResponseBody
    /// Whether the client decoded the body's `Content-Encoding` itself; the
    /// transfer stage then removes `Content-Encoding` and sets
    /// `Content-Length` to the decoded size, so no plugin decodes it twice.
    public var contentDecoded: Bool

    /// Creates a response.
    public init(statusCode: Int, url: URL, headerFields: [String: String], body: ResponseBody, contentDecoded: Bool = false) {
        self.statusCode = statusCode
        self.url = url
        self.fields = HeaderFieldList(headerFields)
        self.body = body
        self.contentDecoded = contentDecoded
    }

    /// Creates a response from a head's fields as the client received them:
    /// in order, a repeated name as often as it came. Lookups join a repeated
    /// field's values with ", ", and ``headerFields`` is made only when read,
    /// so a client that hands its head over this way spares every response a
    /// dictionary most calls never read.
    ///
    /// ```swift
    /// let fields = head.headers.map { (name: $0.name, value: $0.value) }
    /// return TransportResponse(statusCode: Int(head.status.code), url: url, headerFieldPairs: fields, body: body)
    /// ```
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - url: The URL the response came from.
    ///   - headerFieldPairs: The header fields in the order they arrived.
    ///   - body: The body, whole or as a stream of chunks.
    ///   - contentDecoded: Whether the client decoded the body's
    ///     `Content-Encoding` itself.
    public init(statusCode: Int, url: URL, headerFieldPairs: [(name: String, value: String)], body: ResponseBody,
                contentDecoded: Bool = false) {
        self.statusCode = statusCode
        self.url = url
        self.fields = HeaderFieldList(pairs: headerFieldPairs)
        self.body = body
        self.contentDecoded = contentDecoded
    }

    /// The value of a header field, its name matched case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        fields.value(name)
    }
}
