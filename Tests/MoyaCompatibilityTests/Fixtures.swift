import Courier
import CourierAuth
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What Moya's specs check and Courier deliberately does otherwise (each with
// its reason in the "Migrating from Moya" article): requestCompositeParameters
// with a query-string or default URL body encoding traps in Moya and fails with
// an error here (2 examples); the Alamofire session and its
// startRequestsImmediately (2); process before validation (the -1 status);
// the public in-flight table (2, provider and Combine); cancellation as
// NSURLErrorCancelled; exact progress fractions of a throttled stub (5,
// provider and Combine); the main queue as the default callback queue (2);
// MultipartFormData's nil boundary and file manager; the logger's session
// headers (2), its nil-request line, entry formatter and failure text (3);
// mapImage returning UIImage. 22 of 225; the other 203 are tested below.
//
// The fixtures of Moya's own test suite, in Courier's terms: the same target
// enums, sample data and testing plugin, so that each test below reads like
// the spec it re-expresses. Requests that go over the network are sent to the
// in-process loopback server by rebasing the endpoint's URL onto it.

enum GitHub: TargetType, Equatable {
    case zen
    case userProfile(String)

    var baseURL: URL { URL(string: "https://api.github.com")! }

    var path: String {
        switch self {
        case .zen: "/zen"
        case .userProfile(let name): "/users/\(name.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? name)"
        }
    }

    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successAndRedirectCodes }

    var sampleData: Data {
        switch self {
        case .zen: Data("Half measures are as bad as nothing at all.".utf8)
        case .userProfile(let name): Data("{\"login\": \"\(name)\", \"id\": 100}".utf8)
        }
    }
}

/// httpbin's endpoints as Moya's suite uses them.
enum HTTPBin: TargetType, AccessTokenAuthorizable {
    case basicAuth
    case bearer
    case post
    case upload(file: URL)
    case uploadMultipartFormData(MultipartFormData, Parameters?)
    case uploadMultipartBodyParts([MultipartFormBodyPart], Parameters?)

    var baseURL: URL { URL(string: "http://httpbin.org")! }

    var path: String {
        switch self {
        case .basicAuth: "/basic-auth/user/passwd"
        case .bearer: "/bearer"
        case .post, .upload, .uploadMultipartFormData, .uploadMultipartBodyParts: "/post"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .basicAuth, .bearer: .get
        default: .post
        }
    }

    var task: RequestTask {
        switch self {
        case .basicAuth, .post, .bearer:
            .requestParameters(parameters: [:], encoding: URLEncoding.default)
        case .upload(let file):
            .uploadFile(file)
        case .uploadMultipartFormData(let form, let parameters):
            parameters.map { .uploadCompositeMultipartFormData(form, urlParameters: $0) } ?? .uploadMultipartFormData(form)
        case .uploadMultipartBodyParts(let parts, let parameters):
            parameters.map { .uploadCompositeMultipart(parts, urlParameters: $0) } ?? .uploadMultipart(parts)
        }
    }

    var headers: [String: String]? { nil }

    var sampleData: Data {
        switch self {
        case .basicAuth: Data("{\"authenticated\": true, \"user\": \"user\"}".utf8)
        case .bearer: Data("{\"authenticated\": true, \"token\": \"4D4A9C7D-F6E7-4FD7-BDBD-03880550A80D\"}".utf8)
        default: Data("{\"args\": {}, \"data\": \"\", \"json\": null}".utf8)
        }
    }

    var authorizationType: AuthorizationType? {
        switch self {
        case .bearer: .bearer
        default: nil
        }
    }
}

/// A decodable fixture (Moya's `Issue`).
struct IssueFixture: Codable, Equatable {
    let title: String
    let createdAt: Date
    let rating: Float?
}

/// Moya's `OptionalIssue`: every member optional, so `{}` decodes.
struct OptionalIssue: Codable, Equatable {
    let title: String?
    let createdAt: Date?
}

/// Moya's `TestingPlugin`: marks the request in `prepare`, records what
/// `willSend` saw and the result `didReceive` got, and rewrites a success's
/// status to -1 in `process`.
final class TestingPlugin: Plugin {
    private let state = Mutex<(didPrepare: Bool, request: URLRequest?, result: Result<Response, NetworkError>?, didReceiveCount: Int)>(
        (false, nil, nil, 0)
    )

    var didPrepare: Bool { state.withLock { $0.didPrepare } }
    var request: URLRequest? { state.withLock { $0.request } }
    var result: Result<Response, NetworkError>? { state.withLock { $0.result } }
    var didReceiveCount: Int { state.withLock { $0.didReceiveCount } }

    func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        var request = request
        request.addValue("yes", forHTTPHeaderField: "prepared")
        return request
    }

    func willSend(_ request: URLRequest, context: RequestContext) async {
        state.withLock {
            $0.request = request
            // prepare ran before willSend.
            $0.didPrepare = request.value(forHTTPHeaderField: "prepared") == "yes"
        }
    }

    func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        state.withLock {
            $0.result = result
            $0.didReceiveCount += 1
        }
    }

    func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        guard case .success(let response) = result else { return result }
        return .success(Response(statusCode: -1, data: response.data, request: response.request, response: response.response))
    }
}

/// An endpoint closure that sends a target's request to the loopback server
/// instead of its own host, keeping its path and query.
func rebased<Target: TargetType>(onto server: LoopbackServer) -> Provider<Target>.EndpointClosure {
    { target in
        let endpoint = Provider<Target>.defaultEndpointMapping(for: target)
        let original = target.baseURL.absoluteString
        let url = server.baseURL.absoluteString + endpoint.url.dropFirst(original.count)
        return Endpoint(url: url, sampleResponseClosure: endpoint.sampleResponseClosure, method: endpoint.method,
                        task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
    }
}

/// Routes `/zen` on `server` to answer only once the returned gate opens, so
/// that callers can be seen joining one transfer before it ends.
func heldZen(on server: LoopbackServer) -> Gate {
    let gate = Gate()
    server.route("/zen") { _ in
        await gate.wait()
        return .text("Half measures are as bad as nothing at all.")
    }
    return gate
}

/// Moya's `failureEndpointClosure`: every stub fails with one NSError.
let failureEndpointClosure: Provider<GitHub>.EndpointClosure = { target in
    let error = NSError(domain: "com.moya.moyaerror", code: 0, userInfo: [NSLocalizedDescriptionKey: "Houston, we have a problem"])
    return Endpoint(url: target.baseURL.appendingPathComponent(target.path).absoluteString,
                    sampleResponseClosure: { .networkError(error) }, method: target.method, task: target.task,
                    httpHeaderFields: target.headers)
}

/// Waits for a completion handler's result, for tests of the
/// completion-handler API.
func result(
    of start: (@escaping @Sendable (Result<Response, NetworkError>) -> Void) -> Void
) async -> Result<Response, NetworkError> {
    await withCheckedContinuation { continuation in
        start { continuation.resume(returning: $0) }
    }
}

/// A serial queue that knows its name, for tests of where callbacks run:
/// ``current`` names the queue the calling code runs on, `nil` off them all.
struct NamedQueue {
    private static let key = DispatchSpecificKey<String>()

    let queue: DispatchQueue

    init(_ name: String) {
        queue = DispatchQueue(label: "courier.tests.\(name)")
        queue.setSpecific(key: Self.key, value: name)
    }

    static var current: String? { DispatchQueue.getSpecific(key: key) }
}
