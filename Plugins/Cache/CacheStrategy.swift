import Courier
import Foundation

/// Where a request's response comes from: the server, the cache, the cache if
/// it can, both in turn, or your own decision. Chosen per target (``CacheableTarget/cacheStrategy``), by
/// default for the plugin (``CachePlugin/Configuration/defaultStrategy``),
/// and overridable per call:
///
/// ```swift
/// let response = try await provider.request(.feed, cachePolicy: .cacheIfPossible)
/// ```
public enum CacheStrategy: Sendable, CustomStringConvertible {
    /// The network only. The response is still stored, for later calls.
    case server
    /// The cache only: a miss fails with ``CachePlugin/Failure/notCached(_:)``
    /// and sends nothing. Serves an entry however old, until it expires.
    case cache
    /// The cache when it has a usable entry, else the network.
    case cacheIfPossible
    /// The cached response first, then the server's: use
    /// `Provider/requestCacheAndServer(_:options:)`. A plain
    /// `provider.request` with this strategy answers from the network and
    /// updates the cache.
    case cacheAndServer
    /// Asks `decision` whether to send the request given the cached response,
    /// and whether to store the server's response. A plain `provider.request`
    /// returns the server's response when the request is sent, else the
    /// cached one; `Provider/responses(for:cachePolicy:options:)` yields
    /// both.
    case custom(CacheDecision)

    /// The strategy's name, for logs.
    public var description: String {
        switch self {
        case .server: "server"
        case .cache: "cache"
        case .cacheIfPossible: "cacheIfPossible"
        case .cacheAndServer: "cacheAndServer"
        case .custom: "custom"
        }
    }
}

/// The two questions of the ``CacheStrategy/custom(_:)`` strategy.
///
/// ```swift
/// // Ask the server only when the cached copy is missing or empty; keep
/// // only non-empty answers.
/// let decision = CacheDecision(
///     shouldSendRequest: { _, cached in cached?.data.isEmpty ?? true },
///     shouldUpdateCache: { _, response, _ in !response.data.isEmpty }
/// )
/// let response = try await provider.request(.feed, cachePolicy: .custom(decision))
/// ```
public struct CacheDecision: Sendable {
    /// Whether to send the request, given the target and the cached response
    /// (`nil` when nothing is cached).
    public var shouldSendRequest: @Sendable (_ target: any TargetType, _ cached: Response?) -> Bool
    /// Whether to store the server's `response`, given the target and the
    /// cached response it would replace.
    public var shouldUpdateCache: @Sendable (_ target: any TargetType, _ response: Response, _ cached: Response?) -> Bool

    /// Creates a decision from two closures.
    /// - Parameters:
    ///   - shouldSendRequest: Whether to send the request.
    ///   - shouldUpdateCache: Whether to store the server's response.
    public init(
        shouldSendRequest: @escaping @Sendable (_ target: any TargetType, _ cached: Response?) -> Bool,
        shouldUpdateCache: @escaping @Sendable (_ target: any TargetType, _ response: Response, _ cached: Response?) -> Bool
    ) {
        self.shouldSendRequest = shouldSendRequest
        self.shouldUpdateCache = shouldUpdateCache
    }

    /// Asks the target itself, through ``CacheDecidingTarget``; a target that
    /// does not conform sends the request and updates the cache.
    public static let askingTarget = CacheDecision(
        shouldSendRequest: { target, cached in
            (target as? any CacheDecidingTarget)?.shouldSendRequest(cached: cached) ?? true
        },
        shouldUpdateCache: { target, response, cached in
            (target as? any CacheDecidingTarget)?.shouldUpdateCache(with: response, cached: cached) ?? true
        }
    )

    /// The same decision, but always sending: the network leg of a
    /// multi-response call, after the question was already asked.
    var sending: CacheDecision {
        CacheDecision(shouldSendRequest: { _, _ in true }, shouldUpdateCache: shouldUpdateCache)
    }
}

/// A target that answers the questions of the ``CacheStrategy/custom(_:)``
/// strategy itself, with ``CacheDecision/askingTarget``.
///
/// ```swift
/// extension API: CacheableTarget, CacheDecidingTarget {
///     var cacheStrategy: CacheStrategy { .custom(.askingTarget) }
///     func shouldSendRequest(cached: Response?) -> Bool { cached == nil }
///     func shouldUpdateCache(with response: Response, cached: Response?) -> Bool { true }
/// }
/// ```
public protocol CacheDecidingTarget: TargetType {
    /// Whether to send the request, given the cached response (`nil` when
    /// nothing is cached).
    func shouldSendRequest(cached: Response?) -> Bool
    /// Whether to store the server's `response` over `cached`.
    func shouldUpdateCache(with response: Response, cached: Response?) -> Bool
}
