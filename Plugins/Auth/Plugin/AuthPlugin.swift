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
/// and ``Configuration/defaultAuthorizationType``):
/// 1. If the stored token has expired (within ``Configuration/leeway``), it is
///    refreshed before sending. Without a stored credential, the
///    ask-for-credentials handler provides one.
/// 2. The request goes out with `Authorization: <scheme> <token>`, but only
///    when its URL has the target's `baseURL` origin (scheme, host, port); a
///    request sent elsewhere gets no token, and a request that already has an
///    `Authorization` header keeps it.
/// 3. On a status in ``Configuration/refreshStatusCodes`` (401), the token is
///    refreshed and the request replayed once. A replay refused again fails
///    with ``Failure/refusedAfterRefresh(statusCode:)``. A request whose body
///    is a one-shot stream cannot be replayed: its 401 is returned as it is.
/// 4. When the server refuses the refresh (a 4xx other than 408/429, or the
///    refresh closure's own error), the ask-for-credentials handler runs; when
///    that fails too, the store is cleared and every waiting request fails
///    with `NetworkError.authenticationFailed(AuthPlugin.Failure)`. A refresh
///    that fails on the way (no connection, time-out, 5xx, 408, 429) keeps the
///    credential, asks nobody, and fails the waiting requests with
///    ``Failure/refreshFailed(_:)`` holding the `NetworkError`.
/// 5. At most ``Configuration/maximumRefreshes`` refreshes run in
///    ``Configuration/refreshWindow`` seconds, so a server that answers 401
///    forever cannot make the plugin loop.
///
/// Put it before plugins whose `intercept` should see each replay (retry), and
/// after those that answer without the network (a cache).
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
        self.coordinator = RefreshCoordinator(
            store: store, configuration: configuration, askForCredentials: askForCredentials, refresh: refresh
        )
    }

    // MARK: - Plugin

    /// Adds the token, refreshes it when needed, and replays a refused request
    /// once.
    /// - Throws: `NetworkError.authenticationFailed(AuthPlugin.Failure)` when
    ///   no usable token can be had, or the server refuses a refreshed one.
    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        // A request that already says who it is (a login with Basic) keeps
        // its header: the token is for requests that carry none.
        guard request.value(forHTTPHeaderField: "Authorization") == nil,
              let type = authorizationType(for: context.target),
              let url = request.url, url.hasSameOrigin(as: context.target.baseURL),
              !coordinator.isCurrentTaskRecovering
        else {
            return try await next(request)
        }
        let credential = try await authenticating { try await coordinator.usableCredential() }
        let response = try await next(Self.authorize(request, type, credential))
        guard configuration.refreshStatusCodes.contains(response.statusCode), context.isBodyReplayable(request) else {
            return response
        }
        let renewed = try await authenticating { try await coordinator.renewed(replacing: credential.accessToken) }
        let replayed = try await next(Self.authorize(request, type, renewed))
        guard !configuration.refreshStatusCodes.contains(replayed.statusCode) else {
            throw NetworkError.authenticationFailed(Failure.refusedAfterRefresh(statusCode: replayed.statusCode))
        }
        return replayed
    }

    // MARK: - Helpers

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

    /// Wraps the plugin's own reasons in `NetworkError.authenticationFailed`.
    private func authenticating(_ body: () async throws -> Credential) async throws -> Credential {
        do {
            return try await body()
        } catch let failure as Failure {
            throw NetworkError.authenticationFailed(failure)
        }
    }
}
