import Courier
import Foundation

extension Plugin where Self == GzipPlugin {
    /// A ``GzipPlugin``, for a plugins list that reads like a sentence:
    ///
    /// ```swift
    /// let plugins: [any Plugin] = [.logging(), .retry(), .gzip()]
    /// let provider = Provider<API>(plugins: plugins)
    /// ```
    /// - Parameter configuration: Which bodies to compress and how, and the decompression limit.
    /// - Returns: The plugin.
    public static func gzip(_ configuration: GzipPlugin.Configuration = GzipPlugin.Configuration()) -> GzipPlugin {
        GzipPlugin(configuration)
    }
}
