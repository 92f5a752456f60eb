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
}
