import Courier
import Foundation

/// A target that says how its responses are cached. Every member has a
/// default, so a target implements only what it changes.
///
/// ```swift
/// extension API: CacheableTarget {
///     var cacheStrategy: CacheStrategy {
///         switch self {
///         case .feed: .cacheAndServer
///         case .search: .cacheIfPossible
///         default: .server
///         }
///     }
///     var cacheLifetime: TimeInterval? { 10 * 60 }
///     var cacheKeyExtras: [String] { [Locale.current.identifier] }
/// }
/// ```
public protocol CacheableTarget: TargetType {
    /// The strategy for this target, or `nil` for the plugin's default.
    var cacheStrategy: CacheStrategy? { get }
    /// How long this target's entries live, or `nil` for the plugin's
    /// ``CachePlugin/Configuration/lifetime``.
    var cacheLifetime: TimeInterval? { get }
    /// Strings added to the key, for what the URL does not show (a user, a
    /// locale, an API version sent elsewhere).
    var cacheKeyExtras: [String] { get }
    /// A key of the target's own, replacing the method, URL and body part of
    /// the key (the `Vary` part and `cacheKeyExtras` still apply), or `nil`.
    var cacheKey: String? { get }
    /// Whether responses to methods other than GET and HEAD are stored (keyed
    /// by the SHA-256 of the request body). Defaults to `false`.
    var cachesRequestsWithBody: Bool { get }
    /// The status codes stored for this target, or `nil` for the plugin's
    /// ``CachePlugin/Configuration/storableStatusCodes``.
    var cacheableStatusCodes: Set<Int>? { get }
}

extension CacheableTarget {
    /// `nil`: the plugin's default strategy.
    public var cacheStrategy: CacheStrategy? { nil }
    /// `nil`: the plugin's lifetime.
    public var cacheLifetime: TimeInterval? { nil }
    /// No extras.
    public var cacheKeyExtras: [String] { [] }
    /// `nil`: the key from method, URL and body.
    public var cacheKey: String? { nil }
    /// `false`: only GET and HEAD are cached.
    public var cachesRequestsWithBody: Bool { false }
    /// `nil`: the plugin's storable status codes.
    public var cacheableStatusCodes: Set<Int>? { nil }
}
