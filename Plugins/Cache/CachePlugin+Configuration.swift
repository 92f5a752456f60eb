import Courier
import Foundation

extension CachePlugin {
    /// What the cache stores, for how long, and how it reads HTTP headers.
    public struct Configuration: Sendable {
        /// The strategy for targets that name none (see
        /// ``CacheableTarget/cacheStrategy``). Defaults to ``CacheStrategy/server``:
        /// responses are stored, and read only when a target or call asks.
        public var defaultStrategy: CacheStrategy
        /// How long entries live, or `nil` to keep them until the store trims
        /// them (or the store's own default lifetime applies). A target's
        /// ``CacheableTarget/cacheLifetime`` overrides it.
        public var lifetime: TimeInterval?
        /// The status codes whose responses are stored. Defaults to 200–299
        /// except 206 (a partial body is not the resource).
        public var storableStatusCodes: Set<Int>
        /// How to honour `Cache-Control`, validators and the stale extensions,
        /// or `nil` (the default) to follow the strategies and lifetimes
        /// alone. Even then, a `no-store` or `private` response is never
        /// stored.
        public var httpSemantics: HTTPSemantics?
        /// Request header fields that identify who asks; their values, hashed,
        /// are part of every key. Defaults to `Authorization`, so a new token
        /// or another user never reads an earlier one's entries.
        public var identityHeaderFields: [String]
        /// The current time, for lifetimes and freshness.
        public var clock: CacheClock
        /// Called with the result of every background refresh
        /// (`stale-while-revalidate`), when it ends.
        public var onBackgroundRefresh: (@Sendable (Result<Response, NetworkError>) -> Void)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - defaultStrategy: The strategy for targets that name none.
        ///   - lifetime: How long entries live; `nil` keeps them until trimmed.
        ///   - storableStatusCodes: The status codes stored.
        ///   - httpSemantics: How to honour HTTP caching headers; `nil` ignores
        ///     them.
        ///   - identityHeaderFields: Request header fields whose hashed values
        ///     are part of every key.
        ///   - clock: The current time.
        ///   - onBackgroundRefresh: Observes background refreshes.
        public init(
            defaultStrategy: CacheStrategy = .server,
            lifetime: TimeInterval? = nil,
            storableStatusCodes: Set<Int> = Set(200...299).subtracting([206]),
            httpSemantics: HTTPSemantics? = nil,
            identityHeaderFields: [String] = ["Authorization"],
            clock: @escaping CacheClock = { Date() },
            onBackgroundRefresh: (@Sendable (Result<Response, NetworkError>) -> Void)? = nil
        ) {
            self.defaultStrategy = defaultStrategy
            self.lifetime = lifetime
            self.storableStatusCodes = storableStatusCodes
            self.httpSemantics = httpSemantics
            self.identityHeaderFields = identityHeaderFields
            self.clock = clock
            self.onBackgroundRefresh = onBackgroundRefresh
        }
    }

    /// How the cache honours HTTP caching (RFC 9111) when
    /// `Configuration/httpSemantics` is set.
    ///
    /// - `max-age` (or `Expires`) decides freshness; a response without either
    ///   is fresh for the configured lifetime.
    /// - `no-store` is never written (with or without HTTP semantics);
    ///   `private` is written only by a cache that says it is not shared;
    ///   `no-cache` and `must-revalidate` are revalidated before use.
    /// - The configured lifetime is the most an entry lives unless
    ///   ``extendsLifetime`` is set.
    /// - Stale entries are revalidated with `If-None-Match` / `If-Modified-Since`;
    ///   a `304` refreshes the entry and the caller gets the cached body.
    /// - `stale-if-error` serves a stale entry when the network fails or the
    ///   server answers 5xx; `stale-while-revalidate` serves it and refreshes
    ///   in the background (for calls made with `cachePolicy:`).
    public struct HTTPSemantics: Sendable {
        /// Whether the cache is shared between users; a shared cache does not
        /// store `private` responses. Defaults to `false`: an app's cache is
        /// private.
        public var isShared: Bool
        /// Whether to revalidate stale entries with conditional requests.
        public var revalidates: Bool
        /// How long past freshness a stale entry may be served on a network
        /// failure even when the response has no `stale-if-error`, or `nil`
        /// for only when it has.
        public var staleIfError: TimeInterval?
        /// Whether a response's freshness (`max-age`, `Expires`) and stale
        /// windows may keep its entry past the configured lifetime. `false` by
        /// default: the lifetime is the most an entry lives, whatever the
        /// server says.
        public var extendsLifetime: Bool

        /// Creates HTTP semantics settings.
        /// - Parameters:
        ///   - isShared: Whether the cache is shared between users.
        ///   - revalidates: Whether to send conditional requests.
        ///   - staleIfError: A default `stale-if-error` window, or `nil`.
        ///   - extendsLifetime: Whether the server's headers may keep an
        ///     entry past the configured lifetime.
        public init(isShared: Bool = false, revalidates: Bool = true, staleIfError: TimeInterval? = nil,
                    extendsLifetime: Bool = false) {
            self.isShared = isShared
            self.revalidates = revalidates
            self.staleIfError = staleIfError
            self.extendsLifetime = extendsLifetime
        }

        /// RFC 9111 for a private cache.
        public static let standard = HTTPSemantics()
    }
}
