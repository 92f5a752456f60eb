import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if !Cache
#error("CourierCache needs the package trait \"Cache\": add it to the traits of your Courier dependency.")
#endif

/// A response cache for a `Provider`: stores responses in a
/// ``ResponseCaching`` store and answers from it according to a
/// ``CacheStrategy`` per target or per call, optionally honouring HTTP
/// caching headers (`Configuration/httpSemantics`).
///
/// On Linux, Foundation's `URLCache` never stores anything: this is the
/// response cache there is.
///
/// ```swift
/// let store = try DiskResponseCache(directory: cachesDirectory.appendingPathComponent("api"))
/// let cache = CachePlugin(storage: store, configuration: .init(lifetime: 3_600, httpSemantics: .standard))
/// let provider = Provider<API>(plugins: [cache])
///
/// let feed = try await provider.request(.feed, cachePolicy: .cacheIfPossible)
/// for try await response in provider.requestCacheAndServer(.feed) {
///     show(response) // the cached copy first, then the server's
/// }
/// ```
///
/// Where it goes among the other plugins: see "The recommended order" in
/// `Plugin`'s documentation. The key is built from the request as the
/// plugins' `prepare` hooks left it, so a token added there (as `AuthPlugin`
/// does) keeps users apart.
/// Downloads, file uploads and requests with streamed bodies pass through
/// untouched. Only GET and HEAD are cached unless a target opts in with
/// ``CacheableTarget/cachesRequestsWithBody``. An uncacheable request under
/// ``CacheStrategy/cache`` fails with `Failure/notCached(_:)` and never
/// reaches the network. A response a redirect reached at another origin is
/// returned but never stored. `Set-Cookie` is never stored,
/// and `Authorization` counts only as a hash in the key (see
/// `Configuration/identityHeaderFields`; a disk store keys that hash, see
/// ``ResponseCaching/fingerprint(of:)``). A response with `Vary: Cookie` is
/// stored only when the request's `Cookie` field is all there is to know:
/// the request has one, or says `httpShouldHandleCookies = false` (otherwise
/// the transport may add cookies from its own store after the plugins ran).
public final class CachePlugin: Plugin {
    /// Where entries are kept.
    public let storage: any ResponseCaching
    /// What is stored, for how long, and how HTTP headers count.
    public let configuration: Configuration
    let refreshes = BackgroundRefreshes()

    /// Creates a cache plugin.
    /// - Parameters:
    ///   - storage: Where entries are kept; a ``MemoryResponseCache`` by
    ///     default.
    ///   - configuration: What is stored, for how long, and how HTTP headers
    ///     count.
    public init(storage: any ResponseCaching = MemoryResponseCache(), configuration: Configuration = Configuration()) {
        self.storage = storage
        self.configuration = configuration
    }

    /// Waits until every background refresh started so far
    /// (`stale-while-revalidate`) has finished.
    public func waitForBackgroundRefreshes() async {
        await refreshes.waitForAll()
    }

    // MARK: - Plugin

    /// Answers from the cache or sends the request, as the call's strategy
    /// says, and stores what the server answers. A streamed call
    /// (`RequestContext.isStreamed`) passes through: it is neither
    /// answered from the cache nor stored.
    /// - Throws: `Failure/notCached(_:)` when the strategy forbids the
    ///   network and nothing is cached; otherwise whatever `next` throws
    ///   (unless `stale-if-error` serves a stale entry instead).
    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let response = try await answer(request, context: context, next: next)
        if let status = response.cacheStatus {
            context.record(.init(.cacheHit, ["status": status.rawValue]))
        }
        return response
    }

    private func answer(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        // A streamed call's body goes to the caller, never to the store.
        if context.isStreamed { return try await next(request) }
        guard let plan = plan(for: request, context: context) else {
            // An uncacheable request is never in the cache, and `.cache`
            // promises never to reach the network.
            if case .cache = strategy(for: context) { throw Failure.notCached(request.url) }
            return try await next(request)
        }
        let cached = lookup(plan.key, request: request)
        switch plan.strategy {
        case .server, .cacheAndServer:
            return try await fetch(plan, cached: cached, next: next)
        case .cache:
            guard let cached else { throw Failure.notCached(request.url) }
            return cached.response(to: request, status: .hit)
        case .cacheIfPossible:
            if let cached {
                switch usability(of: cached, plan: plan) {
                case .fresh:
                    return cached.response(to: request, status: .hit)
                case .staleWhileRevalidating(let ticket):
                    ticket.request(key: plan.key.base)
                    return cached.response(to: request, status: .stale)
                case .stale:
                    break
                }
            }
            return try await fetch(plan, cached: cached, next: next)
        case .custom(let decision):
            let cachedResponse = cached.map { $0.response(to: request, status: .hit) }
            guard decision.shouldSendRequest(context.target, cachedResponse) else {
                guard let cachedResponse else { throw Failure.notCached(request.url) }
                return cachedResponse
            }
            return try await fetch(plan, cached: cached, next: next) { response in
                decision.shouldUpdateCache(context.target, response, cachedResponse)
            }
        }
    }

    // MARK: - Reading and writing

    /// Everything the plugin decided about one request before looking.
    struct Plan {
        let request: URLRequest
        let context: RequestContext
        let key: CacheKey
        let strategy: CacheStrategy
        let lifetime: TimeInterval?
        let storableStatusCodes: Set<Int>
    }

    private func plan(for request: URLRequest, context: RequestContext) -> Plan? {
        guard !context.isDownload, !context.isFileUpload, !context.isBodyStreamed else { return nil }
        let target = context.target as? any CacheableTarget
        let method = request.httpMethod ?? "GET"
        guard method == "GET" || method == "HEAD" || target?.cachesRequestsWithBody == true,
              let key = CacheKey.make(for: request, target: context.target,
                                       identityHeaderFields: configuration.identityHeaderFields,
                                       fingerprint: storage.fingerprint(of:)) else { return nil }
        return Plan(
            request: request,
            context: context,
            key: key,
            strategy: strategy(for: context),
            lifetime: target?.cacheLifetime ?? configuration.lifetime,
            storableStatusCodes: target?.cacheableStatusCodes ?? configuration.storableStatusCodes
        )
    }

    /// The call's strategy: the per-call option, else the target's, else the
    /// configured default.
    private func strategy(for context: RequestContext) -> CacheStrategy {
        context.options[CacheStrategyKey.self] ?? (context.target as? any CacheableTarget)?.cacheStrategy
            ?? configuration.defaultStrategy
    }

    /// The entry for `key` whose `Vary` values match `request`.
    func lookup(_ key: CacheKey, request: URLRequest) -> CachedResponse? {
        guard let first = unexpiredEntry(forKey: key.base) else { return nil }
        let values = CacheKey.varyValues(named: first.varyValues.keys, in: request, fingerprint: storage.fingerprint(of:))
        if values == first.varyValues { return first }
        guard let variant = unexpiredEntry(forKey: key.varied(by: values)), variant.varyValues == values else {
            return nil
        }
        return variant
    }

    /// The stored entry, unless it has expired by the plugin's clock (which
    /// may differ from the store's).
    private func unexpiredEntry(forKey key: String) -> CachedResponse? {
        guard let entry = storage.entry(forKey: key) else { return nil }
        guard !entry.isExpired(at: configuration.clock()) else {
            storage.removeEntry(forKey: key)
            return nil
        }
        return entry
    }

    /// Stores `entry` where `lookup(_:request:)` finds it: under the base
    /// key (the latest variant, which also tells which fields vary), and
    /// under its variant key.
    func write(_ entry: CachedResponse, key: CacheKey) {
        storage.store(entry, forKey: key.base)
        if !entry.varyValues.isEmpty {
            storage.store(entry, forKey: key.varied(by: entry.varyValues))
        }
    }

    /// Removes the base entry and the variants it can name: the latest one
    /// (recorded in the base entry) and `request`'s own. Older variants
    /// become unreachable without the base entry and expire unread.
    private func evict(_ key: CacheKey, request: URLRequest) {
        if let base = storage.entry(forKey: key.base), !base.varyValues.isEmpty {
            storage.removeEntry(forKey: key.varied(by: base.varyValues))
            storage.removeEntry(forKey: key.varied(by: CacheKey.varyValues(named: base.varyValues.keys, in: request,
                                                                               fingerprint: storage.fingerprint(of:))))
        }
        storage.removeEntry(forKey: key.base)
    }

    /// Stores `response` if its status, method and headers allow it.
    func save(_ response: Response, plan: Plan) {
        guard plan.storableStatusCodes.contains(response.statusCode), response.fileURL == nil else { return }
        let control = CacheControl(response.value(forHTTPHeaderField: "Cache-Control"))
        // `no-store` is honoured whatever the configuration; `private` unless
        // HTTP semantics say the cache is a private one (without them the
        // plugin cannot know whether its store serves one user or many).
        if control.noStore || (control.isPrivate && configuration.httpSemantics?.isShared != false) {
            // What the server now forbids keeping must not be served later.
            evict(plan.key, request: plan.request)
            return
        }
        let varyNames = CacheControl.varyNames(response.value(forHTTPHeaderField: "Vary"))
        // Vary: Cookie on a request without a Cookie field the plugin can
        // see: the transport may add cookies from its own store after the
        // plugins ran (URLSession does), so the entry's identity is unknown.
        let unseenCookies = varyNames.contains("cookie") && plan.request.value(forHTTPHeaderField: "Cookie") == nil
            && plan.request.httpShouldHandleCookies
        guard !varyNames.contains("*"), !unseenCookies else {
            // Uncacheable now: an older answer must not outlive it.
            evict(plan.key, request: plan.request)
            return
        }
        var entry = CachedResponse(
            response: response, key: plan.key.base, storedAt: configuration.clock(), expiresAt: nil,
            varyValues: CacheKey.varyValues(named: varyNames, in: plan.request, fingerprint: storage.fingerprint(of:))
        )
        entry.expiresAt = expiry(of: entry, plan: plan)
        write(entry, key: plan.key)
    }
}

extension RequestContext.Event.Name {
    /// ``CachePlugin`` answered the call. Attribute: `status` (`hit`
    /// without asking the server, `revalidated` for a stored response a 304
    /// confirmed, `stale` for an expired one served when the network failed
    /// or while it is refreshed). `MetricsPlugin` counts these as
    /// `courier.cache_hits`.
    public static let cacheHit: Self = "courier.cache_hit"
}
