import Courier
import Foundation

extension Plugin where Self == AuthPlugin {
    /// An ``AuthPlugin``, for a plugins list that reads like a sentence:
    ///
    /// ```swift
    /// let provider = Provider<API>(plugins: [.auth(store, refresh: renew)])
    /// ```
    /// - Parameters:
    ///   - store: Where the credential is read from and saved to.
    ///   - configuration: Which targets get a token, when to refresh, the
    ///     refresh window, the clock.
    ///   - refresh: Exchanges the current credential for a new one.
    ///   - askForCredentials: Runs when the refresh fails or there is no
    ///     credential.
    /// - Returns: The plugin.
    public static func auth(
        _ store: any CredentialStoring,
        configuration: AuthPlugin.Configuration = AuthPlugin.Configuration(),
        refresh: @escaping AuthPlugin.Refresh,
        askForCredentials: AuthPlugin.AskForCredentials? = nil
    ) -> AuthPlugin {
        AuthPlugin(store: store, configuration: configuration, refresh: refresh, askForCredentials: askForCredentials)
    }
}
