import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adds a token you already have to the requests of targets that ask for one:
/// Moya's `AccessTokenPlugin`, for an API whose token never needs refreshing
/// (use ``AuthPlugin`` when it does).
///
/// ```swift
/// let provider = Provider<API>(plugins: [AccessTokenPlugin { _ in token }])
/// ```
///
/// Only targets that conform to ``AccessTokenAuthorizable`` with a non-`nil`
/// ``AccessTokenAuthorizable/authorizationType`` get `Authorization: <scheme>
/// <token>`, as in Moya; a target inside a `MultiTarget` is asked itself. A
/// 401 is left as it is (it reaches validation like any status). The header is
/// set in `prepare`, before any other plugin's `intercept`, so a cache sees
/// it in its key; a redirect to another origin drops it.
public struct AccessTokenPlugin: Plugin {
    /// Returns the token for a target's request.
    public typealias TokenClosure = @Sendable (_ target: any TargetType) -> String

    /// The closure that supplies the token, called once per request.
    public let tokenClosure: TokenClosure

    /// Creates the plugin.
    /// - Parameter tokenClosure: Returns the token for a target (the target
    ///   itself, unwrapped from a `MultiTarget`).
    public init(tokenClosure: @escaping TokenClosure) {
        self.tokenClosure = tokenClosure
    }

    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        guard let authorizable = context.target as? any AccessTokenAuthorizable,
              let type = authorizable.authorizationType
        else { return request }
        var request = request
        request.setValue(type.headerValue(for: tokenClosure(context.target)), forHTTPHeaderField: "Authorization")
        return request
    }
}

/// Sends a user name and password with the requests of the targets that have
/// them: Moya's `CredentialsPlugin`, as HTTP Basic authentication.
///
/// ```swift
/// let credentials = CredentialsPlugin { target in
///     URLCredential(user: "user", password: "passwd", persistence: .none)
/// }
/// ```
///
/// The closure is asked for each request; `nil` sends none. The credentials
/// go out with the first request (`Authorization: Basic …`) instead of after a
/// challenge, which saves a round trip; a wrong password's 401 comes back as a
/// response, and with validation as `NetworkError/statusCode(_:)`, never as
/// a sign-in failure. A redirect to another origin drops the header.
public struct CredentialsPlugin: Plugin {
    /// Returns the credential for a target's request, or `nil` for none.
    public typealias CredentialClosure = @Sendable (_ target: any TargetType) -> URLCredential?

    private let credentialsClosure: CredentialClosure

    /// Creates the plugin.
    /// - Parameter credentialsClosure: Returns a credential with a user and a
    ///   password for a target, or `nil`.
    public init(credentialsClosure: @escaping CredentialClosure) {
        self.credentialsClosure = credentialsClosure
    }

    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        guard let credential = credentialsClosure(context.target), let user = credential.user else { return request }
        let token = Data("\(user):\(credential.password ?? "")".utf8).base64EncodedString()
        var request = request
        request.setValue(AuthorizationType.basic.headerValue(for: token), forHTTPHeaderField: "Authorization")
        return request
    }
}
