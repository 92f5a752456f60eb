import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The description of one API endpoint: where it lives, how it is called and
/// what it sends.
///
/// Conform an enum (one case per endpoint) or a struct. Only `baseURL`, `path`,
/// `method`, `task` and `headers` are required; the rest have defaults.
///
/// ```swift
/// enum GitHub: TargetType {
///     case user(String)
///     case createIssue(repo: String, title: String)
///
///     var baseURL: URL { URL(string: "https://api.github.com")! }
///     var path: String {
///         switch self {
///         case .user(let name): "/users/\(name)"
///         case .createIssue(let repo, _): "/repos/\(repo)/issues"
///         }
///     }
///     var method: HTTPMethod {
///         switch self {
///         case .user: .get
///         case .createIssue: .post
///         }
///     }
///     var task: RequestTask {
///         switch self {
///         case .user: .requestPlain
///         case .createIssue(_, let title): .requestJSONEncodable(["title": title])
///         }
///     }
///     var headers: [String: String]? { ["Accept": "application/json"] }
///     var validationType: ValidationType { .successCodes }
/// }
/// ```
public protocol TargetType: Sendable {
    /// The base URL of the API, for example `https://api.example.com/v1`.
    var baseURL: URL { get }

    /// The path appended to ``baseURL``, for example `/users/42`. An empty path
    /// means the base URL itself.
    var path: String { get }

    /// The HTTP method.
    var method: HTTPMethod { get }

    /// What the request carries: nothing, a body, parameters, an upload or a
    /// download destination.
    var task: RequestTask { get }

    /// Header fields sent with every request to this target.
    var headers: [String: String]? { get }

    /// Which status codes count as success. Defaults to ``ValidationType/none``:
    /// every status reaches the caller.
    var validationType: ValidationType { get }

    /// The body a stub answers with (see ``StubBehavior``). Defaults to empty.
    var sampleData: Data { get }

    /// The idle time-out for this target's requests, in seconds: a transfer
    /// fails with ``NetworkError/timedOut(_:)`` when nothing is sent or
    /// received for this long. Defaults to `nil`: the provider's
    /// ``TransferConfiguration/timeout``.
    var timeout: TimeInterval? { get }

    /// The most seconds a request's whole transfer may take, redirects
    /// included, however steadily bytes arrive. Defaults to `nil`: the
    /// provider's ``TransferConfiguration/deadline``.
    var deadline: TimeInterval? { get }

    /// The largest response body this target accepts, in bytes: for a
    /// download, the file; otherwise the body kept in memory. Defaults to
    /// `nil`: the provider's ``TransferConfiguration/limits``.
    var maximumResponseSize: Int64? { get }
}

extension TargetType {
    public var validationType: ValidationType { .none }
    public var sampleData: Data { Data() }
    public var timeout: TimeInterval? { nil }
    public var deadline: TimeInterval? { nil }
    public var maximumResponseSize: Int64? { nil }
}
