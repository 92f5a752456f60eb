import Courier
import Foundation

extension AuthPlugin {
    /// Why authentication failed. It reaches the caller wrapped as
    /// `NetworkError.authenticationFailed(failure)`:
    ///
    /// ```swift
    /// do {
    ///     _ = try await provider.request(.profile)
    /// } catch .authenticationFailed(let reason as AuthPlugin.Failure) {
    ///     showSignIn(reason)
    /// }
    /// ```
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// No credential is stored and there is no ask-for-credentials handler.
        case noCredential
        /// The refresh failed and there is no ask-for-credentials handler; the
        /// store was cleared.
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
        /// The new credential could not be saved in the store.
        case storeFailed(any Error)

        /// What happened and what to do, without any token.
        public var description: String {
            switch self {
            case .noCredential:
                "no credential is stored and no ask-for-credentials handler is set. "
                    + "Save a credential in the store (sign in) before calling endpoints that need authorization"
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
                "the token was refreshed \(refreshes) times within \(Int(seconds)) seconds and the server still refuses it; "
                    + "refreshing stopped so as not to loop. Check how the server validates its tokens"
            case .storeFailed(let error):
                "the new credential could not be saved: \(error)"
            }
        }
    }
}
