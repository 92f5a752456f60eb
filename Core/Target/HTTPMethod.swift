/// An HTTP request method.
///
/// The common methods are static members (`.get`, `.post`, …); any other token
/// can be written as a string literal: `let method: HTTPMethod = "PROPFIND"`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as it goes on the wire, for example `"GET"`.
    public let rawValue: String

    /// Creates a method from its wire form, upper-cased.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// Creates a method from a string literal, upper-cased:
    /// `let method: HTTPMethod = "PROPFIND"`.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    /// `GET`: reads a resource. Safe and idempotent.
    public static let get: HTTPMethod = "GET"
    /// `POST`: sends data for the server to process. Neither safe nor
    /// idempotent, so never retried or coalesced by default.
    public static let post: HTTPMethod = "POST"
    /// `PUT`: replaces a resource with the body. Idempotent.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`: changes part of a resource. Not idempotent.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`: removes a resource. Idempotent.
    public static let delete: HTTPMethod = "DELETE"
    /// `HEAD`: a `GET` without the body. Safe and idempotent.
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`: asks what the server allows. Safe and idempotent.
    public static let options: HTTPMethod = "OPTIONS"
    /// `TRACE`: asks the server to echo the request. Safe and idempotent.
    public static let trace: HTTPMethod = "TRACE"
    /// `CONNECT`: asks for a tunnel.
    public static let connect: HTTPMethod = "CONNECT"
    /// `QUERY`: a safe, idempotent query that carries a body.
    public static let query: HTTPMethod = "QUERY"

    /// Whether sending the request twice has the same effect as sending it once
    /// (RFC 9110, section 9.2.2): GET, HEAD, PUT, DELETE, OPTIONS and TRACE,
    /// and QUERY, which its specification defines as safe and idempotent.
    /// Retry and coalescing consult this.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace, .query: true
        default: false
        }
    }

    /// Whether a request with this method may carry a multipart form body:
    /// POST, PUT, PATCH and CONNECT, as in Moya.
    public var supportsMultipart: Bool {
        switch self {
        case .post, .put, .patch, .connect: true
        default: false
        }
    }

    /// Whether a request with this method usually carries its parameters in the
    /// query string (GET, HEAD, DELETE) rather than in the body.
    var encodesParametersInURL: Bool {
        self == .get || self == .head || self == .delete
    }
}
