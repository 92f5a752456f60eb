import Foundation

/// A redirect about to be followed, as ``TransferConfiguration/Redirects/decide``
/// sees it.
public struct RedirectHop: Sendable {
    /// The redirect's status code (301, 302, 303, 307 or 308).
    public let statusCode: Int
    /// The URL that answered with the redirect.
    public let from: URL
    /// The URL the redirect leads to (its `Location`, resolved).
    public let to: URL
    /// The method the next request will use (a 303 turns it into GET).
    public let method: String
    /// Whether `to` has another origin (scheme, host, port) than `from`:
    /// credentials are dropped when it has.
    public let crossesOrigin: Bool
}

/// Whether a redirect is followed; the answer of
/// ``TransferConfiguration/Redirects/decide``.
public enum RedirectDecision: Sendable, Equatable {
    /// Follow it.
    case follow
    /// Do not: the call fails with ``RedirectFailure/refusedByPolicy(statusCode:)``.
    case refuse
}
