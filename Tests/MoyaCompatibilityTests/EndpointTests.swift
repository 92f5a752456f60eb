import Courier
import CourierTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moya's endpoint spec: headers, how each task writes the request, the
/// errors of a request that cannot be built, and endpoint equality.
@Suite struct EndpointTests {
    private static let endpoint = Endpoint(
        url: "https://api.github.com/zen",
        sampleResponseClosure: { .networkResponse(200, GitHub.zen.sampleData) },
        method: .get,
        task: .requestPlain,
        httpHeaderFields: ["Title": "Dominar"]
    )

    private static func request(_ task: RequestTask) throws -> URLRequest {
        try endpoint.replacing(task: task).urlRequest()
    }

    private static func part(_ text: String) -> MultipartFormBodyPart {
        MultipartFormBodyPart(provider: .data(Data(text.utf8)), name: "test")
    }

    private static let date = Date(timeIntervalSince1970: 790_000_000)

    @Test func addingHeaderFieldsReturnsANewEndpoint() {
        let added = Self.endpoint.adding(newHTTPHeaderFields: ["User-Agent": "Zalbinian"])
        #expect(added.httpHeaderFields?["User-Agent"] == "Zalbinian")
        #expect(added.httpHeaderFields?["Title"] == "Dominar")
        #expect(added.url == Self.endpoint.url)
        #expect(added.method == Self.endpoint.method)
        #expect(Self.endpoint.httpHeaderFields?["User-Agent"] == nil)
    }

    @Test func anInvalidURLFailsToBuildARequest() {
        let endpoint = Endpoint(url: "some invalid URL", sampleResponseClosure: { .networkResponse(200, Data()) },
                                method: .get, task: .requestPlain, httpHeaderFields: nil)
        let error = #expect(throws: NetworkError.self) { try endpoint.urlRequest() }
        guard case .requestBuildFailed(let failure as RequestBuildFailure)? = error, case .invalidURL = failure else {
            Issue.record("expected requestBuildFailed(invalidURL), got \(String(describing: error))")
            return
        }
    }

    // MARK: Tasks that leave the request as it is

    @Test(arguments: [
        RequestTask.requestPlain,
        .uploadFile(URL(string: "https://google.com")!),
        .uploadMultipart([]),
        .uploadMultipartFormData([]),
        .downloadDestination(DownloadDestinations.file(URL(fileURLWithPath: "/tmp/courier-moya-download"))),
    ])
    func tasksWithoutParametersLeaveTheRequestAsItIs(task: RequestTask) throws {
        let request = try Self.request(task)
        #expect(request.httpBody == nil)
        #expect(request.url?.absoluteString == "https://api.github.com/zen")
        #expect(request.allHTTPHeaderFields == ["Title": "Dominar"])
        #expect(request.httpMethod == "GET")
    }

    // MARK: Tasks with parameters

    @Test func parametersAndDownloadParametersAreEncodedTheSameWay() throws {
        let parameters: Parameters = ["Nemesis": "Harvey"]
        let reference = try JSONEncoding.default.encode(try Self.request(.requestPlain), with: parameters)
        for task in [
            RequestTask.requestParameters(parameters: parameters, encoding: JSONEncoding.default),
            .downloadParameters(parameters: parameters, encoding: JSONEncoding.default, destination: DownloadDestinations.file(URL(fileURLWithPath: "/tmp/courier-moya-download"))),
        ] {
            let request = try Self.request(task)
            #expect(request.httpBody == reference.httpBody)
            #expect(request.url == reference.url)
            #expect(request.allHTTPHeaderFields == reference.allHTTPHeaderFields)
            #expect(request.httpMethod == reference.httpMethod)
        }
        #expect(reference.httpBody == Data("{\"Nemesis\":\"Harvey\"}".utf8))
    }

    @Test func requestDataSetsTheBodyAndNothingElse() throws {
        let request = try Self.request(.requestData(Data("test data".utf8)))
        #expect(request.httpBody == Data("test data".utf8))
        #expect(request.url?.absoluteString == "https://api.github.com/zen")
        #expect(request.allHTTPHeaderFields == ["Title": "Dominar"])
        #expect(request.httpMethod == "GET")
    }

    @Test func anEncodableBodyIsJSONWithItsContentType() throws {
        let issue = IssueFixture(title: "Hello, Moya!", createdAt: Self.date, rating: 0)
        let request = try Self.request(.requestJSONEncodable(issue))
        #expect(try JSONDecoder().decode(IssueFixture.self, from: request.httpBody ?? Data()) == issue)
        #expect(request.allHTTPHeaderFields == ["Title": "Dominar", "Content-Type": "application/json"])
        #expect(request.url?.absoluteString == "https://api.github.com/zen")
        #expect(request.httpMethod == "GET")
    }

    @Test func aCustomEncoderIsUsed() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .formatted(formatter)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        let issue = IssueFixture(title: "Hello, Moya!", createdAt: Self.date, rating: 0)
        let request = try Self.request(.requestCustomJSONEncodable(issue, encoder: encoder))
        let decoded = try decoder.decode(IssueFixture.self, from: request.httpBody ?? Data())
        #expect(formatter.string(from: decoded.createdAt) == formatter.string(from: issue.createdAt))
        #expect(decoded.title == issue.title)
        #expect(request.allHTTPHeaderFields == ["Title": "Dominar", "Content-Type": "application/json"])
    }

    @Test func compositeDataPutsTheParametersInTheQueryAndTheDataInTheBody() throws {
        let request = try Self.request(.requestCompositeData(bodyData: Data("test data".utf8), urlParameters: ["Nemesis": "Harvey"]))
        #expect(request.url?.absoluteString == "https://api.github.com/zen?Nemesis=Harvey")
        #expect(request.httpBody == Data("test data".utf8))
        #expect(request.allHTTPHeaderFields == ["Title": "Dominar"])
        #expect(request.httpMethod == "GET")
    }

    @Test func compositeParametersEncodeTheBodyAndTheQuery() throws {
        let request = try Self.request(.requestCompositeParameters(bodyParameters: ["Nemesis": "Harvey"], bodyEncoding: JSONEncoding.default,
                                                                    urlParameters: ["Harvey": "Nemesis"]))
        let reference = try JSONEncoding.default.encode(try Self.request(.requestPlain), with: ["Nemesis": "Harvey"])
        #expect(request.url?.absoluteString == "https://api.github.com/zen?Harvey=Nemesis")
        #expect(request.httpBody == reference.httpBody)
        #expect(request.allHTTPHeaderFields == reference.allHTTPHeaderFields)
        #expect(request.httpMethod == "GET")
    }

    @Test func compositeMultipartTasksPutTheParametersInTheQuery() throws {
        let parts = try Self.request(.uploadCompositeMultipart([], urlParameters: ["Harvey": "Nemesis"]))
        let form = try Self.request(.uploadCompositeMultipartFormData([], urlParameters: ["Harvey": "Nemesis"]))
        #expect(parts.url?.absoluteString == "https://api.github.com/zen?Harvey=Nemesis")
        #expect(form.url?.absoluteString == "https://api.github.com/zen?Harvey=Nemesis")
    }

    // MARK: Requests that cannot be built

    @Test func parametersThatCannotBeEncodedFailToBuild() {
        final class NotJSON: Sendable {}
        let error = #expect(throws: NetworkError.self) {
            try Self.request(.requestParameters(parameters: ["": NotJSON()], encoding: JSONEncoding.default))
        }
        guard case .requestBuildFailed? = error else {
            Issue.record("expected requestBuildFailed, got \(String(describing: error))")
            return
        }
    }

    @Test func anEncodableThatCannotBeEncodedFailsToBuild() {
        let issue = IssueFixture(title: "Hello, Moya!", createdAt: Self.date, rating: .infinity)
        let error = #expect(throws: NetworkError.self) { try Self.request(.requestCustomJSONEncodable(issue, encoder: JSONEncoder())) }
        guard case .requestBuildFailed(let failure as RequestBuildFailure)? = error, case .encodingFailed(let inner) = failure else {
            Issue.record("expected requestBuildFailed(encodingFailed), got \(String(describing: error))")
            return
        }
        #expect(inner is EncodingError)
    }

    /// Moya traps on these; Courier refuses them with an error that says what
    /// to use instead.
    @Test(arguments: [URLEncoding.queryString, URLEncoding.default])
    func compositeParametersRefuseABodyEncodingThatWritesTheQuery(encoding: URLEncoding) {
        let error = #expect(throws: NetworkError.self) {
            try Self.request(.requestCompositeParameters(bodyParameters: ["a": "b"], bodyEncoding: encoding, urlParameters: [:]))
        }
        guard case .requestBuildFailed(let failure as RequestBuildFailure)? = error, case .bodyParametersInURL = failure else {
            Issue.record("expected requestBuildFailed(bodyParametersInURL), got \(String(describing: error))")
            return
        }
    }

    @Test func compositeParametersAcceptAnHTTPBodyEncoding() throws {
        let request = try Self.request(.requestCompositeParameters(bodyParameters: ["a": "b"], bodyEncoding: URLEncoding.httpBody,
                                                                    urlParameters: ["q": "1"]))
        #expect(request.httpBody == Data("a=b".utf8))
        #expect(request.url?.query == "q=1")
    }

    // MARK: Equality

    private static func comparing(_ first: RequestTask, _ second: RequestTask) -> (Endpoint, Endpoint) {
        let endpoint = Self.endpoint.replacing(task: first)
        return (endpoint, endpoint.replacing(task: second))
    }

    @Test func equalTasksMakeEqualEndpoints() {
        let issue = IssueFixture(title: "T", createdAt: Self.date, rating: 0)
        let identity = DownloadDestinations.file(URL(fileURLWithPath: "/tmp/courier-moya-download"))
        let pairs: [(RequestTask, RequestTask)] = [
            (.uploadMultipart([Self.part("test")]), .uploadMultipart([Self.part("test")])),
            (.uploadMultipartFormData(MultipartFormData(parts: [Self.part("test")])),
             .uploadMultipartFormData(MultipartFormData(parts: [Self.part("test")]))),
            (.uploadCompositeMultipart([Self.part("test")], urlParameters: [:]), .uploadCompositeMultipart([Self.part("test")], urlParameters: [:])),
            (.uploadCompositeMultipartFormData([Self.part("test")], urlParameters: [:]),
             .uploadCompositeMultipartFormData([Self.part("test")], urlParameters: [:])),
            (.uploadFile(URL(string: "https://google.com")!), .uploadFile(URL(string: "https://google.com")!)),
            (.downloadDestination(identity), .downloadDestination(identity)),
            // A download destination is a closure: never compared.
            (.downloadDestination(identity), .downloadDestination(DownloadDestinations.suggestedFile(in: URL(fileURLWithPath: "/tmp")))),
            (.downloadParameters(parameters: ["test": "test2"], encoding: JSONEncoding.default, destination: identity),
             .downloadParameters(parameters: ["test": "test2"], encoding: JSONEncoding.default, destination: identity)),
            (.requestCompositeData(bodyData: Data("test".utf8), urlParameters: ["test": "test1"]),
             .requestCompositeData(bodyData: Data("test".utf8), urlParameters: ["test": "test1"])),
            (.requestPlain, .requestPlain),
            (.requestData(Data("test".utf8)), .requestData(Data("test".utf8))),
            (.requestJSONEncodable(issue), .requestJSONEncodable(issue)),
            (.requestParameters(parameters: ["test": "test1"], encoding: URLEncoding.queryString),
             .requestParameters(parameters: ["test": "test1"], encoding: URLEncoding.queryString)),
            (.requestCompositeParameters(bodyParameters: ["test": "test1"], bodyEncoding: JSONEncoding.default, urlParameters: ["url_test": "test1"]),
             .requestCompositeParameters(bodyParameters: ["test": "test1"], bodyEncoding: JSONEncoding.default, urlParameters: ["url_test": "test1"])),
            (.requestCustomJSONEncodable(issue, encoder: JSONEncoder()), .requestCustomJSONEncodable(issue, encoder: JSONEncoder())),
        ]
        for (first, second) in pairs {
            let (one, other) = Self.comparing(first, second)
            #expect(one == other, "\(first) vs \(second)")
            #expect(one.hashValue == other.hashValue, "\(first) vs \(second)")
        }
    }

    @Test func differentTasksMakeDifferentEndpoints() {
        let issue = IssueFixture(title: "T", createdAt: Self.date, rating: 0)
        let renamed = IssueFixture(title: "Ta", createdAt: Self.date, rating: 0)
        let identity = DownloadDestinations.file(URL(fileURLWithPath: "/tmp/courier-moya-download"))
        let snakeCase = JSONEncoder()
        snakeCase.keyEncodingStrategy = .convertToSnakeCase
        let pairs: [(RequestTask, RequestTask)] = [
            (.uploadMultipart([Self.part("test")]), .uploadMultipart([Self.part("test1")])),
            (.uploadMultipartFormData(MultipartFormData(parts: [Self.part("test")])),
             .uploadMultipartFormData(MultipartFormData(parts: [Self.part("test1")]))),
            (.uploadCompositeMultipart([Self.part("test")], urlParameters: [:]), .uploadCompositeMultipart([Self.part("test1")], urlParameters: [:])),
            (.uploadCompositeMultipartFormData([Self.part("test")], urlParameters: ["test": "test2"]),
             .uploadCompositeMultipartFormData([Self.part("test")], urlParameters: ["test": "test3"])),
            (.uploadCompositeMultipartFormData([Self.part("test")], urlParameters: [:]),
             .uploadCompositeMultipartFormData([Self.part("test1")], urlParameters: [:])),
            (.uploadFile(URL(string: "https://google.com")!), .uploadFile(URL(string: "https://google.com?q=test")!)),
            (.downloadParameters(parameters: ["test": "test2"], encoding: JSONEncoding.default, destination: identity),
             .downloadParameters(parameters: ["test": "test3"], encoding: JSONEncoding.default, destination: identity)),
            (.requestCompositeData(bodyData: Data("test".utf8), urlParameters: ["test": "test1"]),
             .requestCompositeData(bodyData: Data("test".utf8), urlParameters: ["test": "test2"])),
            (.requestCompositeData(bodyData: Data("test".utf8), urlParameters: ["test": "test1"]),
             .requestCompositeData(bodyData: Data("test2".utf8), urlParameters: ["test": "test1"])),
            (.requestData(Data("test".utf8)), .requestData(Data("test1".utf8))),
            (.requestJSONEncodable(issue), .requestJSONEncodable(renamed)),
            (.requestParameters(parameters: ["test": "test1"], encoding: URLEncoding.queryString),
             .requestParameters(parameters: ["test": "test2"], encoding: URLEncoding.queryString)),
            (.requestCompositeParameters(bodyParameters: ["test": "test1"], bodyEncoding: JSONEncoding.default, urlParameters: ["url_test": "test1"]),
             .requestCompositeParameters(bodyParameters: ["test": "test1"], bodyEncoding: JSONEncoding.default, urlParameters: ["url_test": "test2"])),
            (.requestCompositeParameters(bodyParameters: ["test": "test1"], bodyEncoding: JSONEncoding.default, urlParameters: ["url_test": "test1"]),
             .requestCompositeParameters(bodyParameters: ["test": "test2"], bodyEncoding: JSONEncoding.default, urlParameters: ["url_test": "test1"])),
            (.requestCustomJSONEncodable(issue, encoder: JSONEncoder()), .requestCustomJSONEncodable(renamed, encoder: JSONEncoder())),
            (.requestCustomJSONEncodable(issue, encoder: JSONEncoder()), .requestCustomJSONEncodable(issue, encoder: snakeCase)),
        ]
        for (first, second) in pairs {
            let (one, other) = Self.comparing(first, second)
            #expect(one != other, "\(first) vs \(second)")
        }
    }

    // MARK: Endpoint closures

    @Test(arguments: [false, true])
    func anEndpointClosureCanAddMultipartParts(asFormData: Bool) async throws {
        try await withServer { server in
            let provider = Provider<HTTPBin>(endpointClosure: { target in
                let endpoint = rebased(onto: server)(target)
                let extra = MultipartFormBodyPart(provider: .data(Data("test2".utf8)), name: "test2")
                switch endpoint.task {
                case .uploadMultipartFormData(let form): return endpoint.replacing(task: .uploadMultipartFormData(MultipartFormData(parts: form.parts + [extra])))
                case .uploadMultipart(let parts): return endpoint.replacing(task: .uploadMultipart(parts + [extra]))
                default: return endpoint
                }
            })
            let first = MultipartFormBodyPart(provider: .data(Data("test1".utf8)), name: "test1")
            let target: HTTPBin = asFormData ? .uploadMultipartFormData([first], nil) : .uploadMultipartBodyParts([first], nil)
            _ = try await provider.request(target)
            let body = String(decoding: server.requests(to: "/post").last?.body ?? Data(), as: UTF8.self)
            #expect(body.contains("name=\"test1\"\r\n\r\ntest1\r\n"))
            #expect(body.contains("name=\"test2\"\r\n\r\ntest2\r\n"))
        }
    }
}
