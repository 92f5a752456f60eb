import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a plugin knows about the request it is working on: the target, which
/// transmission this is, the per-call options.
///
/// One context lives for one `provider.request(...)` call, across every
/// replay and retry of it.
public struct RequestContext: Sendable {
    /// The target being requested; the wrapped one for a ``MultiTarget``.
    public let target: any TargetType
    /// A number unique to this call within the process, for correlating log
    /// lines.
    public let id: UInt64
    /// The per-call options (see ``RequestOptions``).
    public let options: RequestOptions
    /// How the provider answers: from the network or from a stub.
    public let stubBehavior: StubBehavior
    /// When the call started, by the wall clock. For how long it has run,
    /// read ``elapsed``: the wall clock may be set forward or back meanwhile.
    public let startedAt: Date
    /// When the call started, on a clock that never jumps.
    private let startInstant = ContinuousClock.now

    /// Whether the request downloads to a file.
    public let isDownload: Bool
    /// Whether the request uploads from a file (a file task, or a multipart
    /// body too large to build in memory).
    public private(set) var isFileUpload: Bool
    /// Whether the request's body can be sent again: `false` only for a
    /// one-shot ``RequestBodyStream`` the transport sends as it reads it. A
    /// plugin that sends a request again (a retry, a replay after a token
    /// refresh) checks it, with `URLRequest`'s `isBodyReplayable`, and
    /// returns what it has instead.
    ///
    /// ```swift
    /// guard context.isBodyReplayable, request.isBodyReplayable else { return response }
    /// ```
    public private(set) var isBodyReplayable = true
    /// Whether the request's body is a ``RequestBodyStream`` the transport
    /// reads as it sends (``RequestTask/uploadStream(_:)`` on a transport that
    /// sends streams): the `URLRequest` plugins see has no body, and nothing
    /// can key or log it.
    public private(set) var isBodyStreamed = false
    /// Whether the call streams its body to the caller (``Provider/stream(_:streamOptions:options:)``):
    /// the response that plugins see has an empty `data`, and the body
    /// reaches the caller after every hook has run. A plugin that reports on
    /// the body waits for ``onStreamEnd(_:)``; one that stores bodies (a cache)
    /// leaves the response alone.
    public let isStreamed: Bool
    /// The transmissions so far, the events and the handlers waiting for a
    /// streamed body's end, in one lock (one allocation per call).
    private let progress: Locked<(
        attempts: Int, sent: URLRequest?, events: [Event], streamEnd: [@Sendable (StreamSummary) -> Void],
        decoders: [any StreamedBodyDecoder], defaultHooks: [DefaultHook]
    )>

    /// A default hook that ran during the call, for ``PluginChain`` to learn
    /// from: which hook, for which plugin type.
    struct DefaultHook: Sendable, Equatable {
        let hook: PluginChain.Hooks.RawValue
        let type: ObjectIdentifier
    }

    /// The operation the call performs, when the caller named one: an
    /// OpenAPI operation ID for calls of `CourierOpenAPI`, or whatever
    /// ``RequestOptions/operationID`` was set to. Tracing and metrics plugins
    /// name spans and series after it.
    public var operationID: String? { options.operationID }

    init(
        target: any TargetType,
        options: RequestOptions,
        stubBehavior: StubBehavior,
        isDownload: Bool = false,
        isFileUpload: Bool = false,
        isStreamed: Bool = false
    ) {
        self.target = target
        self.id = RequestContext.nextID.withLock { id in
            id += 1
            return id
        }
        self.options = options
        self.stubBehavior = stubBehavior
        self.startedAt = Date()
        self.isDownload = isDownload
        self.isFileUpload = isFileUpload
        self.isStreamed = isStreamed
        self.progress = Locked((attempts: 0, sent: nil, events: [], streamEnd: [], decoders: [], defaultHooks: []))
    }

    /// How long the call has run so far, on a monotonic clock: in
    /// `didReceive`, the whole call's duration.
    ///
    /// ```swift
    /// func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
    ///     print("\(context.target.path) took \(context.elapsed)")
    /// }
    /// ```
    public var elapsed: Duration { startInstant.duration(to: .now) }

    /// How many times the request has been handed to the transport (or the
    /// stub) so far: 1 during the first transmission's `willSend`, 2 during a
    /// replay's, and so on.
    public var attempt: Int { progress.withLock { $0.attempts } }

    /// The request of the latest transmission, as every plugin's `willSend`
    /// saw it: `nil` until the call is first handed to the transport (or the
    /// stub), and so for a call answered from a cache or one that failed
    /// before it was sent. A plugin that reports in `didReceive` names the
    /// call with it; a redirect the transfer stage followed does not change
    /// it (the response's `request` is the one that was redirected to).
    ///
    /// ```swift
    /// func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
    ///     let url = context.sentRequest?.url ?? context.target.baseURL
    ///     print("\(url): \(result.map(\.statusCode))")
    /// }
    /// ```
    public var sentRequest: URLRequest? { progress.withLock { $0.sent } }

    /// What happened during the call so far, in order: redirects the
    /// transfer stage followed, retries, token refreshes, cache hits, and
    /// whatever other plugins recorded. Observing plugins (tracing, metrics)
    /// read it in `didReceive`, after every `intercept` has returned.
    public var events: [Event] { progress.withLock { $0.events } }

    /// Records an event of the call, for plugins that observe it.
    ///
    /// ```swift
    /// context.record(.init(.retry, ["attempt": "2", "reason": "503"]))
    /// ```
    public func record(_ event: Event) {
        progress.withLock { $0.events.append(event) }
    }

    /// Runs `handler` when a streamed call's body ends, with how it ended:
    /// every byte read, a failure, or the reader stopping early. Register it
    /// from any hook of a call whose ``isStreamed`` is `true` (for other
    /// calls it never runs); it runs once, on whichever thread ended the
    /// stream, after the caller has read the last chunk.
    ///
    /// ```swift
    /// func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
    ///     guard context.isStreamed else { return report(result) }
    ///     context.onStreamEnd { summary in report(result, bytes: summary.bytes) }
    /// }
    /// ```
    public func onStreamEnd(_ handler: @escaping @Sendable (StreamSummary) -> Void) {
        progress.withLock { $0.streamEnd.append(handler) }
    }

    /// Decodes a streamed call's body with `decoder` as the caller reads it:
    /// how a plugin undoes a `Content-Encoding` on a stream (the gzip plugin
    /// does). Register it in `process`, when the head the caller gets is
    /// known, and return that head with the header fields that described the
    /// encoded body (`Content-Encoding`, `Content-Length`) removed. Decoders
    /// run in the order they were registered. For calls that are not
    /// streamed it does nothing.
    ///
    /// The stream's byte limit (``StreamOptions/maximumBytes``) counts the
    /// bytes that arrived; what they decode to is the decoder's to bound.
    ///
    /// ```swift
    /// func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
    ///     guard context.isStreamed, case .success(let head) = result,
    ///           head.value(forHTTPHeaderField: "Content-Encoding") == "x-reversed" else { return result }
    ///     context.decodeStream(with: Reversing())
    ///     return .success(head.replacing(response: withoutEncodingFields(head.response)))
    /// }
    /// ```
    public func decodeStream(with decoder: any StreamedBodyDecoder) {
        guard isStreamed else { return }
        progress.withLock { $0.decoders.append(decoder) }
    }

    /// The decoders registered with ``decodeStream(with:)``, in order.
    var streamDecoders: [any StreamedBodyDecoder] { progress.withLock { $0.decoders } }

    /// Tells the handlers of ``onStreamEnd(_:)`` how the body ended.
    func streamEnded(_ summary: StreamSummary) {
        let handlers = progress.withLock { progress in
            defer { progress.streamEnd = [] }
            return progress.streamEnd
        }
        for handler in handlers { handler(summary) }
    }

    /// Marks the call as uploading from a file, once its body is built.
    mutating func markFileUpload() {
        isFileUpload = true
    }

    /// Marks the call's body as a stream the transport reads as it sends,
    /// read once unless `replayable`.
    mutating func markStreamedBody(replayable: Bool) {
        isBodyStreamed = true
        if !replayable { isBodyReplayable = false }
    }

    /// Notes that the default of `hook` ran for a plugin of type `type`
    /// (only until the provider has learned it; each pair once).
    func noteDefault(_ hook: PluginChain.Hooks, of type: any Plugin.Type) {
        let note = DefaultHook(hook: hook.rawValue, type: ObjectIdentifier(type))
        progress.withLock { progress in
            if !progress.defaultHooks.contains(note) { progress.defaultHooks.append(note) }
        }
    }

    /// Whether the default of `hook` ran for a plugin of the type `type`.
    func ranDefault(_ hook: PluginChain.Hooks, of type: ObjectIdentifier) -> Bool {
        progress.withLock { $0.defaultHooks.contains(DefaultHook(hook: hook.rawValue, type: type)) }
    }

    /// Counts a transmission of `request` and keeps it as ``sentRequest``.
    func beginAttempt(_ request: URLRequest) -> Int {
        progress.withLock { progress in
            progress.attempts += 1
            progress.sent = request
            return progress.attempts
        }
    }

    private static let nextID = Locked<UInt64>(0)
}

extension RequestContext {
    /// Something that happened during a call, recorded with
    /// ``RequestContext/record(_:)``.
    public struct Event: Sendable, Equatable {
        /// What kind of event it is. The core names the events of its own
        /// stages (``redirect``, ``retry``); a plugin names its own in an
        /// extension, prefixed by something of its own so no two collide:
        ///
        /// ```swift
        /// extension RequestContext.Event.Name {
        ///     public static let quotaWarning: Self = "example.quota_warning"
        /// }
        /// context.record(.init(.quotaWarning, ["remaining": "10"]))
        /// ```
        public struct Name: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
            /// The name as text, such as `"courier.redirect"`.
            public let rawValue: String
            /// Creates a name from its text.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// Creates a name from a string literal.
            public init(stringLiteral value: String) { self.rawValue = value }
            /// The name as text.
            public var description: String { rawValue }

            /// The transfer stage followed a redirect. Attributes: `status`
            /// (the redirect's status code) and `location` (the URL of the next
            /// hop, with its query: redact it before it leaves the process).
            public static let redirect: Name = "courier.redirect"
            /// A plugin sends the request again after a failure. Attributes:
            /// `attempt` (the transmission about to start) and `reason`.
            public static let retry: Name = "courier.retry"
        }

        /// What kind of event it is.
        public let name: Name
        /// Details, by name (see each ``Name`` for the ones it carries).
        public let attributes: [String: String]
        /// When it happened.
        public let at: Date

        /// Creates an event that happens now.
        /// - Parameters:
        ///   - name: What kind of event it is.
        ///   - attributes: Details, by name.
        public init(_ name: Name, _ attributes: [String: String] = [:]) {
            self.name = name
            self.attributes = attributes
            self.at = Date()
        }
    }
}
