import Courier
import Foundation

extension Plugin where Self == RetryPlugin {
    /// A ``RetryPlugin``, for a plugins list that reads like a sentence:
    ///
    /// ```swift
    /// let plugins: [any Plugin] = [.logging(), .retry(), .gzip()]
    /// let provider = Provider<API>(plugins: plugins)
    /// ```
    /// - Parameter configuration: Attempts, back-off, budget and clock.
    /// - Returns: The plugin.
    public static func retry(_ configuration: RetryPlugin.Configuration = RetryPlugin.Configuration()) -> RetryPlugin {
        RetryPlugin(configuration)
    }
}
