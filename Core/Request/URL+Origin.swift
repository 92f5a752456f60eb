import Foundation

extension URL {
    /// Whether `other` has the same origin as this URL: the same scheme and
    /// host, in any letter case, and the same port (80 and 443 when not
    /// written, for `http` and `https`).
    ///
    /// The transfer stage drops credentials on a redirect that changes the
    /// origin; plugins use the same rule to tell an answer from the origin
    /// they sent a request to from one a redirect reached elsewhere.
    ///
    /// ```swift
    /// let sent = URL(string: "https://api.example.com/feed")!
    /// sent.hasSameOrigin(as: URL(string: "https://API.example.com:443/v2")!) // true
    /// sent.hasSameOrigin(as: URL(string: "https://cdn.example.com/feed")!)   // false
    /// ```
    /// - Parameter other: The URL to compare with.
    /// - Returns: `true` when scheme, host and port all match.
    public func hasSameOrigin(as other: URL) -> Bool {
        Origin.same(self, other)
    }
}
