import Courier
import Foundation

/// The per-call override of the cache strategy, in `RequestOptions`.
///
/// ```swift
/// var options = RequestOptions()
/// options[CacheStrategyKey.self] = .cache
/// let offline = try await provider.request(.feed, options: options)
/// // or, the same:
/// let offline = try await provider.request(.feed, cachePolicy: .cache)
/// ```
public enum CacheStrategyKey: RequestOptionKey {
    /// No override: the target's strategy, or the plugin's default.
    public static let defaultValue: CacheStrategy? = nil
}

extension RequestOptions {
    /// Returns a copy whose cache strategy is `strategy`.
    /// - Parameter strategy: The strategy for the call.
    /// - Returns: The options with ``CacheStrategyKey`` set.
    public func cachePolicy(_ strategy: CacheStrategy) -> RequestOptions {
        setting(CacheStrategyKey.self, to: strategy)
    }
}

/// Carried in the options of calls that can run a background refresh; the
/// plugin marks it when it served a stale entry under
/// `stale-while-revalidate`, and the caller then starts the refresh.
///
/// A plugin cannot send on its own once `intercept` has returned (its `next`
/// does not escape), so the refresh runs as a new call of the provider.
final class RefreshTicket: Sendable {
    private let key = Locked<String?>(nil)

    func request(key: String) {
        self.key.withLock { $0 = key }
    }

    /// The key of the entry to refresh, when a refresh was asked for.
    var requestedKey: String? { key.withLock { $0 } }
}

enum RefreshTicketKey: RequestOptionKey {
    static let defaultValue: RefreshTicket? = nil
}
