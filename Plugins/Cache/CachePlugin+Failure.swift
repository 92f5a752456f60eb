import Courier
import Foundation

extension CachePlugin {
    /// Why the cache could not answer. Reaches callers wrapped in
    /// `NetworkError/plugin(_:_:)`, with the plugin's name.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The ``CacheStrategy/cache`` strategy (or a custom decision not to
        /// send) found nothing stored for this URL; nothing was sent.
        case notCached(URL?)
        /// A multi-response call (`Provider/requestCacheAndServer(_:options:)`)
        /// was made on a provider without a ``CachePlugin``.
        case pluginMissing
        /// A disk store's directory could not be created or read.
        case directoryUnavailable(URL, any Error)
        /// A disk store's directory is a symbolic link, or belongs to another
        /// user, so its entries cannot be trusted.
        case untrustedDirectory(URL, reason: String)

        // No closing full stop: NetworkError's description adds one.
        /// What went wrong and what to do, in a sentence.
        public var description: String {
            switch self {
            case .notCached(let url):
                "Nothing is cached for \(url.map(URLRedactor.summary) ?? "this request"), and the cache strategy forbids asking "
                    + "the server; use .cacheIfPossible to fall back to the network"
            case .pluginMissing:
                "This call reads the cache, but the provider has no CachePlugin; add one to the provider's plugins"
            case .directoryUnavailable(let url, let error):
                "The cache directory \(url.path) could not be created or read (\(error)). "
                    + "Choose a writable directory"
            case .untrustedDirectory(let url, let reason):
                "The cache directory \(url.path) is not safe to use: \(reason). "
                    + "Give the cache a directory of its own, inside one only you can write to"
            }
        }

        /// Whether `error` is a `notCached(_:)` failure, however wrapped.
        public static func isNotCached(_ error: any Error) -> Bool {
            let inner: any Error = (error as? NetworkError)?.underlyingError ?? error
            if case .notCached = inner as? Failure { return true }
            return false
        }
    }
}
