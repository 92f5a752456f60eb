import Courier
import Foundation

/// A target that says whether its requests carry the access token, and with
/// which scheme, as in Moya.
///
/// ```swift
/// extension API: AccessTokenAuthorizable {
///     var authorizationType: AuthorizationType? {
///         switch self {
///         case .login, .refreshToken: nil   // public endpoints
///         case .profile, .orders: .bearer
///         }
///     }
/// }
/// ```
///
/// Targets that do not conform get
/// ``AuthPlugin/Configuration/defaultAuthorizationType``.
public protocol AccessTokenAuthorizable {
    /// The scheme for this target's `Authorization` header, or `nil` to send
    /// no token.
    var authorizationType: AuthorizationType? { get }
}

/// A `MultiTarget` asks the target it wraps, as in Moya; `nil` when that
/// target does not conform.
extension MultiTarget: AccessTokenAuthorizable {
    public var authorizationType: AuthorizationType? {
        (target as? any AccessTokenAuthorizable)?.authorizationType
    }
}
