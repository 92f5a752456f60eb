import Courier
import Foundation

/// Adds the access token to requests, refreshes it when it has expired or is
/// refused, and replays the refused request once — with exactly one refresh
/// however many requests need it at the same time.
///
/// ```swift
/// let store = FileCredentialStore(fileURL: credentialFile)
/// let auth = AuthPlugin(store: store) { credential in
///     // Call your refresh endpoint, through any provider — even the one this
///     // plugin belongs to: requests made inside the refresh skip the plugin,
///     // so they never wait for the refresh they are part of.
///     let tokens = try await refreshProvider.request(.refresh(credential.refreshToken ?? ""), mapper: TokensMapper())
///     return Credential(accessToken: tokens.access, refreshToken: tokens.refresh, expiresIn: tokens.expiresIn)
/// } askForCredentials: {
///     try await signInScreen.present()   // optional: when the refresh fails
/// }
/// let provider = Provider<API>(plugins: [auth])
/// ```
///
/// For each request whose target wants a token (see ``AccessTokenAuthorizable``
/// and `Configuration/defaultAuthorizationType`):
/// 1. In `prepare`, before any plugin's `intercept`, the request gets
///    `Authorization: <scheme> <token>`, but only when its URL has the
///    target's `baseURL` origin (scheme, host, port); a request sent elsewhere
///    gets no token, and a request that already has an `Authorization` header
///    keeps it. Because the token is there before the intercept chain, a
///    cache's key always sees whose request it is, whatever the order of the
///    plugins. If the stored token has expired (within
///    `Configuration/leeway`), it is refreshed first; without a stored
///    credential, the ask-for-credentials handler provides one. A token the
///    server has just issued is used even if the device's clock says it has
///    expired: the server's 401 is the truth.
/// 2. On a status in `Configuration/refreshStatusCodes` (401) to a request
///    carrying a token this plugin added, from the origin the token was sent
///    to, the token is refreshed and the request replayed once (a 401 from
///    another origin a redirect reached is returned as it is: the token never
///    went there). A replay refused again fails with
///    `Failure/refusedAfterRefresh(statusCode:)`. A request whose body is a
///    one-shot stream (`httpBodyStream`, or a `RequestBodyStream` read
///    once) cannot be replayed: the token is refreshed all the same, and the
///    401 returned, so the caller's next call carries the new token.
/// 3. Only a refusal clears the store: a 401 or 403 from the refresh
///    endpoint, a 400 whose body is OAuth's `{"error": "invalid_grant"}`, or
///    `RefreshRefused` thrown by the refresh closure. Then the
///    ask-for-credentials handler runs; when that fails too, the store is
///    cleared and every waiting request fails with
///    `NetworkError.plugin("AuthPlugin", AuthPlugin.Failure)`. Any other
///    failure (no connection, a time-out, a 5xx, any other 4xx such as 404,
///    407, 408, 425, 429 or 451, another 400, a cancelled task) keeps the
///    credential, asks nobody, and fails the waiting requests with
///    `Failure/refreshFailed(_:)`.
/// 4. One refresh runs per store, however many plugins and providers share
///    it; it may take at most `Configuration/refreshTimeout` seconds. A
///    sign-out (the store cleared) during a refresh is never undone by the
///    refresh finishing.
/// 5. At most `Configuration/maximumRefreshes` refreshes run in
///    `Configuration/refreshWindow` seconds of a clock that only moves
///    forward, so a server that answers 401 forever cannot make the plugin
///    loop.
///
/// Where it goes among the other plugins: see "The recommended order" in
/// `Plugin`'s documentation.
public struct AuthPlugin: Plugin {
    /// Exchanges a credential for a new one, usually with its refresh token.
    public typealias Refresh = @Sendable (Credential) async throws -> Credential
    /// Gets a new credential when the refresh failed or there is none: shows a
    /// sign-in screen, or signs in with stored account details.
    public typealias AskForCredentials = @Sendable () async throws -> Credential

    /// Where the credential is kept.
    public let store: any CredentialStoring
    /// The plugin's configuration.
    public let configuration: Configuration
    private let coordinator: RefreshCoordinator

    /// Creates the plugin.
    /// - Parameters:
    ///   - store: Where the credential is read from and saved to.
    ///   - configuration: Which targets get a token, when to refresh, the
    ///     refresh window, the clock.
    ///   - refresh: Exchanges the current credential for a new one. It runs
    ///     once for all requests waiting; requests it makes skip this plugin.
    ///     Plugins that share a store share one refresh: the first plugin
    ///     made for a store supplies the closures and configuration that run
    ///     it.
    ///   - askForCredentials: Runs when the refresh fails or there is no
    ///     credential; `nil` fails at once instead.
    public init(
        store: any CredentialStoring,
        configuration: Configuration = Configuration(),
        refresh: @escaping Refresh,
        askForCredentials: AskForCredentials? = nil
    ) {
        self.store = store
        self.configuration = configuration
        self.coordinator = RefreshCoordinator.shared(for: store) {
            RefreshCoordinator(store: store, configuration: configuration, askForCredentials: askForCredentials, refresh: refresh)
        }
    }

    // MARK: - Plugin

    /// Adds the token, refreshing it first when it has expired.
    /// - Throws: `NetworkError.plugin("AuthPlugin", AuthPlugin.Failure)` when
    ///   no usable token can be had.
    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        // A request that already says who it is (a login with Basic) keeps
        // its header: the token is for requests that carry none.
        guard request.value(forHTTPHeaderField: "Authorization") == nil,
              let type = authorizationType(for: context.target),
              let url = request.url, url.hasSameOrigin(as: context.target.baseURL),
              !coordinator.isCurrentTaskRecovering
        else {
            return request
        }
        let (credential, renewed) = try await authenticating { try await coordinator.usableCredential() }
        if renewed { context.record(.init(.tokenRefresh, ["trigger": "expired"])) }
        coordinator.record(credential.accessToken)
        return Self.authorize(request, type, credential)
    }

    /// Replays a request refused with the token this plugin added, once, with
    /// a refreshed one.
    /// - Throws: `NetworkError.plugin("AuthPlugin", AuthPlugin.Failure)` when
    ///   the refresh fails or the server refuses the refreshed token.
    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let response = try await next(request)
        // Only the origin the token went to can refuse it: a redirect to
        // another origin arrives there without the token.
        guard configuration.refreshStatusCodes.contains(response.statusCode),
              let sent = request.url, let answered = response.response?.url, answered.hasSameOrigin(as: sent),
              let type = authorizationType(for: context.target),
              let token = request.value(forHTTPHeaderField: "Authorization").flatMap(type.token(inHeaderValue:)),
              coordinator.issuedToken(token),
              !coordinator.isCurrentTaskRecovering
        else {
            return response
        }
        let renewed = try await authenticating { try await coordinator.renewed(replacing: token) }
        context.record(.init(.tokenRefresh, ["trigger": String(response.statusCode)]))
        // A one-shot body is gone: the refused response stands, and the
        // caller's next call goes out with the new token.
        guard request.isBodyReplayable, context.isBodyReplayable else { return response }
        let replayed = try await next(Self.authorize(request, type, renewed))
        guard !configuration.refreshStatusCodes.contains(replayed.statusCode) else {
            throw NetworkError.plugin(Self.name, Failure.refusedAfterRefresh(statusCode: replayed.statusCode))
        }
        return replayed
    }

    /// How many requests wait for the refresh in flight; for tests that need
    /// to know every caller has joined it.
    @_spi(Testing) public var waitingRequests: Int {
        get async { await coordinator.waitingCount }
    }

    // MARK: - Helpers

    /// How ``NetworkError/plugin(_:_:)`` names this plugin.
    static let name = "AuthPlugin"

    private func authorizationType(for target: any TargetType) -> AuthorizationType? {
        if let target = target as? any AccessTokenAuthorizable {
            return target.authorizationType
        }
        return configuration.defaultAuthorizationType
    }

    private static func authorize(_ request: URLRequest, _ type: AuthorizationType, _ credential: Credential) -> URLRequest {
        var request = request
        request.setValue(type.headerValue(for: credential.accessToken), forHTTPHeaderField: "Authorization")
        return request
    }

    /// Wraps the plugin's own reasons in `NetworkError.plugin`.
    private func authenticating<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let failure as Failure {
            throw NetworkError.plugin(Self.name, failure)
        }
    }
}

extension RequestContext.Event.Name {
    /// ``AuthPlugin`` renewed the credential during the call (or waited for
    /// a renewal already under way). Attribute: `trigger` (`expired`, or the
    /// status code the server refused the old credential with).
    /// `MetricsPlugin` counts these as `courier.token_refreshes`.
    public static let tokenRefresh: Self = "courier.token_refresh"
}
