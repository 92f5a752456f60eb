import Courier
import Foundation

/// The scheme in front of the token in the `Authorization` header, as in
/// Moya's `AuthorizationType`.
public enum AuthorizationType: Sendable, Hashable {
    /// `Authorization: Bearer <token>`.
    case bearer
    /// `Authorization: Basic <token>`; the token is the Base64 of
    /// `user:password`.
    case basic
    /// `Authorization: <scheme> <token>`, for example `.custom("Token")`; an
    /// empty scheme sends the token alone.
    case custom(String)

    /// The scheme's name: `Bearer`, `Basic`, or the custom one.
    public var scheme: String {
        switch self {
        case .bearer: "Bearer"
        case .basic: "Basic"
        case .custom(let scheme): scheme
        }
    }

    /// The `Authorization` header value for `token`.
    /// - Parameter token: The access token.
    /// - Returns: For example `Bearer abc`.
    public func headerValue(for token: String) -> String {
        scheme.isEmpty ? token : "\(scheme) \(token)"
    }

    /// The token in an `Authorization` header value of this scheme (the
    /// inverse of `headerValue(for:)`), or `nil` for another scheme.
    func token(inHeaderValue value: String) -> String? {
        let prefix = scheme.isEmpty ? "" : scheme + " "
        guard value.hasPrefix(prefix) else { return nil }
        return String(value.dropFirst(prefix.count))
    }
}
