import Courier
import Foundation

extension Plugin where Self == LoggingPlugin {
    /// A ``LoggingPlugin``, for a plugins list that reads like a sentence:
    ///
    /// ```swift
    /// let plugins: [any Plugin] = [.logging(), .retry(), .gzip()]
    /// let provider = Provider<API>(plugins: plugins)
    /// ```
    /// - Parameter configuration: The logger, the levels and what to hide.
    /// - Returns: The plugin.
    public static func logging(_ configuration: LoggingPlugin.Configuration = LoggingPlugin.Configuration()) -> LoggingPlugin {
        LoggingPlugin(configuration)
    }
}
