import Courier
import Foundation

extension AuthPlugin {
    /// Why authentication failed. It reaches the caller wrapped as
    /// `NetworkError.plugin("AuthPlugin", failure)`:
    ///
    /// ```swift
    /// do {
    ///     _ = try await provider.request(.profile)
    /// } catch .plugin(_, let reason as AuthPlugin.Failure) {
    ///     showSignIn(reason)
    /// }
    /// ```
    ///
    /// Outside a typed `catch`, `error.authenticationFailure` finds it.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// No credential is stored and there is no ask-for-credentials handler.
        case noCredential
        /// The refresh failed. When the error is a passing network failure
        /// (`NetworkError` `.noConnection`, `.timedOut`, `.connectionLost`,
        /// `.serverUnreachable`, `.cancelled`, or a 5xx, 408 or 429 status),
        /// the credential is kept and nobody is asked to sign in: try again
        /// later. Otherwise the server refused the refresh, there is no
        /// ask-for-credentials handler, and the store was cleared.
        case refreshFailed(any Error)
        /// The refresh failed (or there was nothing to refresh) and asking for
        /// credentials failed too; the store was cleared.
        case credentialsUnavailable(refreshError: (any Error)?, askError: any Error)
        /// The server refused the request again with this status after the
        /// token had been refreshed.
        case refusedAfterRefresh(statusCode: Int)
        /// The token was refreshed `refreshes` times within `seconds` and the
        /// server still refused it; refreshing stopped so as not to loop.
        case refreshLimitExceeded(refreshes: Int, seconds: TimeInterval)
        /// The store was cleared while the refresh ran (the user signed out),
        /// so the refreshed credential was thrown away rather than saved.
        case clearedDuringRefresh

        /// What happened and what to do, without any token.
        public var description: String {
            switch self {
            case .noCredential:
                "no credential is stored and no ask-for-credentials handler is set. "
                    + "Save a credential in the store (sign in) before calling endpoints that need authorization"
            case .refreshFailed(let error) where !RefreshCoordinator.isRefusal(error):
                "the access token could not be refreshed because of a network failure (\(error)); "
                    + "the stored credential was kept. Try again when the server is reachable"
            case .refreshFailed(let error):
                "the access token could not be refreshed (\(error)), and no ask-for-credentials handler is set; "
                    + "the stored credential was cleared"
            case .credentialsUnavailable(let refreshError, let askError):
                (refreshError.map { "the access token could not be refreshed (\($0)), and " } ?? "")
                    + "asking for credentials failed (\(askError)); the stored credential was cleared"
            case .refusedAfterRefresh(let statusCode):
                "the server answered \(statusCode) again with a freshly refreshed token. "
                    + "The account may lack access to this endpoint, or the server rejects the tokens it issues"
            case .refreshLimitExceeded(let refreshes, let seconds):
                "the token was refreshed \(refreshes) times within \(Int(exactly: seconds.rounded()).map(String.init) ?? "\(seconds)") seconds and the server still refuses it; "
                    + "refreshing stopped so as not to loop. Check how the server validates its tokens"
            case .clearedDuringRefresh:
                "the stored credential was cleared while it was being refreshed, so the new one was discarded. "
                    + "Sign in again"
            }
        }
    }
}

extension AuthPlugin {
    /// Thrown by a refresh closure to say that the server refused the
    /// credential, when its answer is not a 4xx the plugin can see (a 200
    /// with an error in the body, say): the store is cleared and the
    /// ask-for-credentials handler runs. Any other error keeps the credential.
    ///
    /// ```swift
    /// AuthPlugin(store: store) { credential in
    ///     let answer = try await api.request(.refresh(credential.refreshToken ?? ""), decoding: RefreshAnswer.self)
    ///     guard let tokens = answer.tokens else { throw AuthPlugin.RefreshRefused(reason: answer.error) }
    ///     return Credential(accessToken: tokens.access, refreshToken: tokens.refresh)
    /// }
    /// ```
    public struct RefreshRefused: Error, Sendable, CustomStringConvertible {
        /// What the server said, for the error's description.
        public let reason: String

        /// Creates the error.
        /// - Parameter reason: What the server said.
        public init(reason: String) {
            self.reason = reason
        }

        public var description: String { "the server refused the refresh: \(reason)" }
    }

    /// A refresh that took longer than `Configuration/refreshTimeout`; it
    /// reaches the waiting requests inside `NetworkError.timedOut`.
    public struct RefreshTimedOut: Error, Sendable, CustomStringConvertible {
        /// The time-out, in seconds.
        public let seconds: TimeInterval

        public var description: String { "the refresh did not finish within \(seconds) seconds" }
    }
}

extension NetworkError {
    /// The ``AuthPlugin/Failure`` inside, when ``AuthPlugin`` failed the call
    /// (the error is `.plugin("AuthPlugin", failure)`); `nil` otherwise.
    ///
    /// ```swift
    /// if let failure = error.authenticationFailure { showSignIn(failure) }
    /// ```
    public var authenticationFailure: AuthPlugin.Failure? {
        guard case .plugin(AuthPlugin.name, let failure as AuthPlugin.Failure) = self else { return nil }
        return failure
    }
}
