import Courier
import Foundation

/// An access token, the refresh token that renews it, and when it expires.
///
/// Printing a credential never shows its tokens: `description`,
/// `debugDescription` and `dump(_:)` show `<redacted>` and the token's length.
///
/// ```swift
/// let credential = Credential(accessToken: "eyJ…", refreshToken: "r1", expiresIn: 3600)
/// print(credential) // Credential(accessToken: <redacted, 4 characters>, refreshToken: <redacted, …>, expiresAt: …)
/// ```
public struct Credential: Codable, Sendable, Hashable {
    /// The token sent in the `Authorization` header.
    public var accessToken: String
    /// The token that buys a new access token, when the server issued one.
    public var refreshToken: String?
    /// When the access token stops working; `nil` when the server did not say.
    public var expiresAt: Date?
    /// When the access token was issued, when known: with `expiresAt` it
    /// gives the token's lifetime, which caps the leeway in
    /// `isExpired(at:leeway:)`.
    public var issuedAt: Date?

    /// Creates a credential that expires at a given date.
    /// - Parameters:
    ///   - accessToken: The token for the `Authorization` header.
    ///   - refreshToken: The token that renews it, if any.
    ///   - expiresAt: When the access token expires; `nil` for never or unknown.
    ///   - issuedAt: When the access token was issued; `nil` for unknown.
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, issuedAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }

    /// Creates a credential that expires a number of seconds from `now`, the
    /// way OAuth's `expires_in` says it.
    /// - Parameters:
    ///   - accessToken: The token for the `Authorization` header.
    ///   - refreshToken: The token that renews it, if any.
    ///   - expiresIn: Seconds until the access token expires; `nil` for never
    ///     or unknown.
    ///   - now: The current time (inject a clock in tests).
    public init(accessToken: String, refreshToken: String? = nil, expiresIn: TimeInterval?, now: Date = Date()) {
        self.init(
            accessToken: accessToken, refreshToken: refreshToken,
            expiresAt: expiresIn.map { now.addingTimeInterval($0) }, issuedAt: expiresIn == nil ? nil : now
        )
    }

    /// Whether the access token has expired at `date`, or will within `leeway`
    /// seconds. A credential without an expiry date never expires.
    ///
    /// When the lifetime is known (`issuedAt` is set), the leeway is at most
    /// half of it: a token issued with `expires_in: 20` and a 30-second
    /// leeway is refreshed after 10 seconds, not at once.
    /// - Parameters:
    ///   - date: The time to check against.
    ///   - leeway: Seconds before the expiry date from which the token already
    ///     counts as expired, so that it does not expire on its way to the server.
    /// - Returns: `true` when the token should be refreshed before use.
    public func isExpired(at date: Date = Date(), leeway: TimeInterval = 0) -> Bool {
        guard let expiresAt else { return false }
        var leeway = leeway
        if let issuedAt {
            leeway = min(leeway, max(0, expiresAt.timeIntervalSince(issuedAt)) / 2)
        }
        return expiresAt.timeIntervalSince(date) <= leeway
    }
}

// MARK: - Printing without secrets

extension Credential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The credential with its tokens replaced by `<redacted>`.
    public var description: String {
        let expiry = expiresAt.map { "\($0)" } ?? "never"
        return "Credential(accessToken: \(Self.redacted(accessToken)), refreshToken: \(Self.redacted(refreshToken)), expiresAt: \(expiry))"
    }

    /// The same as `description`: tokens never reach a log.
    public var debugDescription: String { description }

    /// A mirror whose children show `<redacted>` instead of the tokens, so
    /// `dump(_:)` and debuggers do not print them either.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "accessToken": Self.redacted(accessToken),
            "refreshToken": Self.redacted(refreshToken),
            "expiresAt": expiresAt as Any,
            "issuedAt": issuedAt as Any,
        ], displayStyle: .struct)
    }

    static func redacted(_ token: String?) -> String {
        guard let token else { return "nil" }
        return "<redacted, \(token.count) characters>"
    }
}
