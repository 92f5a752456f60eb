import Foundation

/// How a ``Provider`` moves bytes, whatever its transport: redirects,
/// time-outs, size limits and content decoding.
///
/// ```swift
/// var transfer = TransferConfiguration()
/// transfer.redirects.maximum = 3
/// transfer.deadline = 120
/// transfer.limits.maximumBodySize = 8 << 20
/// let provider = Provider<API>(transfer: transfer)
/// ```
public struct TransferConfiguration: Sendable {
    /// How redirects are followed.
    public struct Redirects: Sendable {
        /// Whether redirects are followed at all. When `false`, a 3xx response
        /// is returned as it is.
        public var follows: Bool
        /// How many redirects one call may follow before it fails with
        /// ``RedirectFailure/tooManyRedirects(_:)``.
        public var maximum: Int
        /// Whether a redirect from `https` to plain `http` is followed. `false`
        /// by default: it fails with ``RedirectFailure/insecureDowngrade``.
        public var allowsInsecureDowngrade: Bool
        /// Whether a 307 or 308 (or a 301 or 302 of a method other than POST)
        /// to another origin sends the request's body there too. `false` by
        /// default: such a redirect fails with
        /// ``RedirectFailure/bodyToAnotherOrigin`` and sends nothing more.
        public var allowsBodyToOtherOrigins: Bool
        /// Asked before each redirect the other rules allow; `nil` (the
        /// default) follows them all. A redirect it refuses fails with
        /// ``RedirectFailure/refusedByPolicy(statusCode:)`` and sends nothing
        /// more; to get the 3xx response itself, set ``follows`` to `false`.
        ///
        /// ```swift
        /// transfer.redirects.decide = { hop in
        ///     hop.to.host == "cdn.example.com" || !hop.crossesOrigin ? .follow : .refuse
        /// }
        /// ```
        public var decide: (@Sendable (RedirectHop) -> RedirectDecision)?
        /// The header fields dropped from a request that a redirect sends to
        /// another origin (compared ignoring case); by default
        /// ``defaultCredentialHeaders``. Add the name of any field that
        /// carries a secret of your own.
        public var credentialHeaders: Set<String>

        /// The header fields that carry credentials in common use, and that
        /// the logging plugin hides too: `Authorization`,
        /// `Proxy-Authorization`, `Cookie`, `X-Api-Key`, `Api-Key` and
        /// `X-Auth-Token`.
        public static let defaultCredentialHeaders: Set<String> = [
            "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token",
        ]

        /// Creates a redirect policy.
        /// - Parameters:
        ///   - follows: Whether redirects are followed at all.
        ///   - maximum: How many redirects one call may follow.
        ///   - allowsInsecureDowngrade: Whether `https` may redirect to `http`.
        ///   - allowsBodyToOtherOrigins: Whether a body may follow a redirect
        ///     to another origin.
        ///   - decide: Asked before each redirect; `nil` follows them all.
        ///   - credentialHeaders: The header fields that never follow a
        ///     request to another origin.
        public init(
            follows: Bool = true,
            maximum: Int = 10,
            allowsInsecureDowngrade: Bool = false,
            allowsBodyToOtherOrigins: Bool = false,
            decide: (@Sendable (RedirectHop) -> RedirectDecision)? = nil,
            credentialHeaders: Set<String> = defaultCredentialHeaders
        ) {
            self.credentialHeaders = credentialHeaders
            self.follows = follows
            self.maximum = maximum
            self.allowsInsecureDowngrade = allowsInsecureDowngrade
            self.allowsBodyToOtherOrigins = allowsBodyToOtherOrigins
            self.decide = decide
        }
    }

    /// How large a response may be.
    public struct Limits: Sendable {
        /// The most bytes a body kept in memory may have (after decoding, when
        /// the transport decodes it); 64 MiB by default. A larger body fails
        /// with ``NetworkError/responseTooLarge(_:)`` as soon as it passes the
        /// limit. A target overrides it with ``TargetType/maximumResponseSize``.
        public var maximumBodySize: Int64
        /// The most bytes a download may write to disk; `nil` (the default)
        /// for no limit. A target overrides it with
        /// ``TargetType/maximumResponseSize``.
        public var maximumDownloadSize: Int64?

        /// Creates limits.
        public init(maximumBodySize: Int64 = 64 << 20, maximumDownloadSize: Int64? = nil) {
            self.maximumBodySize = maximumBodySize
            self.maximumDownloadSize = maximumDownloadSize
        }
    }

    /// How redirects are followed.
    public var redirects: Redirects
    /// How large a response may be.
    public var limits: Limits
    /// The idle time-out in seconds for targets whose ``TargetType/timeout`` is
    /// `nil`: a transfer fails when nothing is sent or received for this long.
    /// 60 by default.
    public var timeout: TimeInterval
    /// The most seconds one call's transfer may take, redirects included,
    /// however steadily bytes move, for targets whose
    /// ``TargetType/deadline`` is `nil`; `nil` (the default) for none.
    public var deadline: TimeInterval?
    /// Whether responses arrive with their `gzip` or `deflate`
    /// `Content-Encoding` undone, the same on every transport; `true` by
    /// default.
    ///
    /// This one setting decides what is asked for and what is decoded. When
    /// `true`, a request that names no `Accept-Encoding` asks for
    /// `gzip, deflate`, and the transport hands the body over decoded:
    /// `Content-Encoding` leaves the head, `Content-Length` is the decoded
    /// size (or absent while the body streams), and the size limits count
    /// decoded bytes, as they arrive, so a decompression bomb ends in
    /// ``NetworkError/responseTooLarge(_:)`` at the limit. When `false`, such
    /// a request asks for `identity`, and a body a server encodes anyway
    /// arrives as it was sent, with its `Content-Encoding` (for the gzip
    /// plugin to decode under its own limit, or to keep as it is).
    ///
    /// A streamed call (``Provider/stream(_:streamOptions:options:)``) asks
    /// for `identity` either way, since a compressor holds back what it has
    /// not yet filled a block with; a body sent encoded anyway is decoded by
    /// the same rule.
    ///
    /// ``URLSessionTransport`` asks for `identity` whatever this says, and
    /// refuses a compressed answer at its head, unless created with
    /// ``URLSessionTransport/decodesCompressedResponses``: `URLSession` decodes
    /// every encoding it knows by itself, before any limit counts the bytes.
    /// Opted in, with `false` a server that ignores `identity` still gets its
    /// body decoded there; the head then says so, as above. And libcurl does
    /// not check that a stream it decodes ended: a body whose compressed
    /// stream stops short of its end, though its length is whole, arrives on
    /// Linux as the bytes decoded so far, where the other transports fail
    /// with ``NetworkError/invalidResponse(_:)``.
    public var decodesContent: Bool

    /// Creates a configuration.
    public init(redirects: Redirects = Redirects(), limits: Limits = Limits(), timeout: TimeInterval = 60,
                deadline: TimeInterval? = nil, decodesContent: Bool = true) {
        self.redirects = redirects
        self.limits = limits
        self.timeout = timeout
        self.deadline = deadline
        self.decodesContent = decodesContent
    }
}
