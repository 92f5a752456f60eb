import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moya's small specs: MultiTarget, HTTP methods and multipart, the
/// multipart form, and the access-token plugin.
@Suite struct SmallSpecsTests {
    struct StructAPI: TargetType, AccessTokenAuthorizable {
        var baseURL: URL { URL(string: "http://example.com")! }
        var path: String { "/endpoint" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestParameters(parameters: ["key": "value"], encoding: JSONEncoding.default) }
        var sampleData: Data { Data("sample data".utf8) }
        var validationType: ValidationType { .successCodes }
        var headers: [String: String]? { ["headerKey": "headerValue"] }
        var authorizationType: AuthorizationType? { .basic }
    }

    // MARK: MultiTarget

    @Test func aMultiTargetForwardsEveryMember() throws {
        let target = MultiTarget.target(StructAPI())
        #expect(target.baseURL == URL(string: "http://example.com"))
        #expect(target.path == "/endpoint")
        #expect(target.method == .get)
        guard case .requestParameters(let parameters, let encoding) = target.task else {
            Issue.record("expected requestParameters, got \(target.task)")
            return
        }
        #expect(parameters["key"] as? String == "value")
        #expect(parameters.count == 1)
        #expect(encoding is JSONEncoding)
        #expect(String(describing: target.task).hasPrefix("requestParameters"))
        #expect(target.sampleData == Data("sample data".utf8))
        #expect(target.validationType == .successCodes)
        #expect(target.headers == ["headerKey": "headerValue"])
        #expect(target.authorizationType == .basic)
        #expect(MultiTarget(GitHub.zen).authorizationType == nil)
    }

    // MARK: Methods

    @Test(arguments: [
        (HTTPMethod.get, false), (.post, true), (.put, true), (.delete, false), (.options, false), (.head, false),
        (.patch, true), (.trace, false), (.connect, true),
    ])
    func multipartIsForMethodsWithABody(method: HTTPMethod, supports: Bool) {
        #expect(method.supportsMultipart == supports)
    }

    // MARK: Multipart form

    @Test func aFormKeepsItsParts() {
        let url = URL(fileURLWithPath: "/tmp.txt")
        let form = MultipartFormData(parts: [MultipartFormBodyPart(provider: .file(url), name: "MyName", fileName: "tmp.txt", mimeType: "text/plain")])
        #expect(form.parts.count == 1)
        #expect(form.parts[0].name == "MyName")
        #expect(form.parts[0].fileName == "tmp.txt")
        #expect(form.parts[0].mimeType == "text/plain")
        guard case .file(let file) = form.parts[0].provider else {
            Issue.record("expected a file part")
            return
        }
        #expect(file == url)
        // Courier always has a boundary (Moya's is nil until encoding).
        #expect(form.boundary.hasPrefix("courier.boundary."))
    }

    // MARK: Access token plugin

    struct TokenTarget: TargetType, AccessTokenAuthorizable {
        let authorizationType: AuthorizationType?
        var baseURL: URL { URL(string: "http://www.api.com/")! }
        var path: String { "" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestPlain }
        var headers: [String: String]? { nil }
    }

    private static let token = "eyeAm.AJsoN.weBTOKen"

    /// The header fields of `target`'s request as the last plugin sees it
    /// and as the response carries it, sent with the plugin: exactly the
    /// fields the target and the plugins set, as Moya's specs check.
    private static func fields<Target: TargetType>(for target: Target) async throws -> [String: String] {
        let seen = Mutex<[String: String]?>(nil)
        let provider = Provider<Target>(requestClosure: { endpoint in try endpoint.urlRequest() },
                                        stubClosure: Provider.immediatelyStub,
                                        plugins: [AccessTokenPlugin { _ in token }, HeaderSpy(seen: seen)])
        let response = try await provider.request(target)
        let sent = try #require(seen.withLock { $0 })
        #expect(response.request?.allHTTPHeaderFields ?? [:] == sent)
        return sent
    }

    struct HeaderSpy: Plugin {
        let seen: Mutex<[String: String]?>
        func willSend(_ request: URLRequest, context: RequestContext) async {
            seen.withLock { $0 = request.allHTTPHeaderFields ?? [:] }
        }
    }

    @Test func targetsThatAreNotAuthorizableGetNoHeader() async throws {
        #expect(try await Self.fields(for: GitHub.zen) == [:])
        #expect(try await Self.fields(for: TokenTarget(authorizationType: nil)) == [:])
    }

    @Test(arguments: [
        (AuthorizationType.basic, "Basic eyeAm.AJsoN.weBTOKen"),
        (.bearer, "Bearer eyeAm.AJsoN.weBTOKen"),
        (.custom("CustomAuthorizationHeader"), "CustomAuthorizationHeader eyeAm.AJsoN.weBTOKen"),
    ])
    func authorizableTargetsGetTheirScheme(type: AuthorizationType, header: String) async throws {
        #expect(try await Self.fields(for: TokenTarget(authorizationType: type)) == ["Authorization": header])
    }

    @Test func theTokenReachesTheServerAndA401StaysAResponse() async throws {
        try await withServer { server in
            server.route("/bearer") { request in
                request.header("Authorization") == "Bearer good" ? .json(Data("{\"authenticated\": true}".utf8)) : .text("", status: 401)
            }
            let good = Provider<HTTPBin>(endpointClosure: rebased(onto: server), plugins: [AccessTokenPlugin { _ in "good" }])
            let accepted = try await good.request(.bearer).statusCode
            #expect(accepted == 200)
            let bad = Provider<HTTPBin>(endpointClosure: rebased(onto: server), plugins: [AccessTokenPlugin { _ in "bad" }])
            let refused = try await bad.request(.bearer).statusCode
            #expect(refused == 401)
        }
    }
}
