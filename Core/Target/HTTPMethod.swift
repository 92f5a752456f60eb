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

    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }

    public static let get: HTTPMethod = "GET"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let head: HTTPMethod = "HEAD"
    public static let options: HTTPMethod = "OPTIONS"
    public static let trace: HTTPMethod = "TRACE"
    public static let connect: HTTPMethod = "CONNECT"
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

    /// Whether a request with this method usually carries its parameters in the
    /// query string (GET, HEAD, DELETE) rather than in the body.
    /// Whether a request with this method may carry a multipart form body:
    /// POST, PUT, PATCH and CONNECT, as in Moya.
    public var supportsMultipart: Bool {
        switch self {
        case .post, .put, .patch, .connect: true
        default: false
        }
    }

    var encodesParametersInURL: Bool {
        self == .get || self == .head || self == .delete
    }
}
