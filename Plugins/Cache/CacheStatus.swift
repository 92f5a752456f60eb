import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a response came from, as far as the cache is concerned. Read it with
/// `Response/cacheStatus`.
public enum CacheStatus: String, Sendable {
    /// Served from the cache without asking the server.
    case hit
    /// The server answered `304 Not Modified`; the cached body was served as a
    /// `200` and the entry refreshed.
    case revalidated
    /// A stale entry served because the network failed (`stale-if-error`) or
    /// while a background refresh runs (`stale-while-revalidate`).
    case stale

    /// The response header field ``CachePlugin`` adds to the responses it
    /// answers itself.
    public static let headerField = "X-Courier-Cache"
}

extension Response {
    /// How the cache answered: `nil` for a response that came from the server
    /// as it is.
    ///
    /// ```swift
    /// let response = try await provider.request(.feed, cachePolicy: .cacheIfPossible)
    /// if response.cacheStatus == .hit { print("served from the cache") }
    /// ```
    public var cacheStatus: CacheStatus? {
        value(forHTTPHeaderField: CacheStatus.headerField).flatMap(CacheStatus.init(rawValue:))
    }
}
