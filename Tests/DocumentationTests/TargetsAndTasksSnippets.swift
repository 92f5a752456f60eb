// The code of Core/Courier.docc/TargetsAndTasks.md.

import CourierTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Courier
import Foundation

enum Issues: TargetType {
    case list(repo: String, page: Int)
    case create(repo: String, NewIssue)
    case attach(issue: Int, file: URL)
    case export(repo: String, folder: URL)

    var baseURL: URL { URL(string: "https://api.example.com/v1")! }
    var path: String {
        switch self {
        case .list(let repo, _), .create(let repo, _): "/repos/\(repo)/issues"
        case .attach(let issue, _): "/issues/\(issue)/attachments"
        case .export(let repo, _): "/repos/\(repo)/export"
        }
    }
    var method: HTTPMethod {
        switch self {
        case .list, .export: .get
        case .create, .attach: .post
        }
    }
    var task: RequestTask {
        switch self {
        case .list(_, let page):
            .requestParameters(parameters: ["page": page, "state": "open"], encoding: URLEncoding.queryString)
        case .create(_, let issue):
            .requestJSONEncodable(issue)
        case .attach(_, let file):
            .uploadMultipart([MultipartFormBodyPart(provider: .file(file), name: "attachment")])
        case .export(_, let folder):
            .downloadDestination(DownloadDestinations.suggestedFile(in: folder))
        }
    }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var validationType: ValidationType { .successCodes }
}

struct NewIssue: Encodable, Sendable {
    let title: String
    let body: String
}

extension Issues {
    static func page(_ page: Int) -> Typed<Issues, DataMapper> {
        Issues.list(repo: "courier", page: page).returning(DataMapper())
    }
}

/// A provider of `Issues` whose requests go to `server` instead of
/// api.example.com.
private func issuesProvider(on server: LoopbackServer) -> Provider<Issues> {
    Provider<Issues>(endpointClosure: { target in
        let endpoint = Provider.defaultEndpointMapping(for: target)
        let url = endpoint.url.replacingOccurrences(of: "https://api.example.com", with: server.baseURL.absoluteString)
        return Endpoint(url: url, sampleResponseClosure: endpoint.sampleResponseClosure, method: endpoint.method,
                        task: endpoint.task, httpHeaderFields: endpoint.httpHeaderFields)
    })
}

@Suite struct TargetsAndTasksSnippets {
    @Test func queryParametersAreSortedAndEscaped() throws {
        let request = try Provider<Issues>().endpoint(.list(repo: "courier", page: 2)).urlRequest()
        // https://api.example.com/v1/repos/courier/issues?page=2&state=open
        #expect(request.url?.absoluteString == "https://api.example.com/v1/repos/courier/issues?page=2&state=open")
        #expect(request.httpMethod == "GET")
    }

    @Test func anEncodableBecomesAJSONBody() throws {
        let request = try Provider<Issues>().endpoint(.create(repo: "courier", NewIssue(title: "Bug", body: "It broke"))).urlRequest()
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let sent = try JSONDecoder().decode([String: String].self, from: request.httpBody ?? Data())
        #expect(sent == ["title": "Bug", "body": "It broke"])
    }

    @Test func aFileBecomesAMultipartBody() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let file = folder.file("crash.log")
        try Data("stack trace".utf8).write(to: file)
        let provider = Provider<Issues>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(.attach(issue: 7, file: file))
        let contentType = response.request?.value(forHTTPHeaderField: "Content-Type") ?? ""
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let body = String(decoding: response.request?.httpBody ?? Data(), as: UTF8.self)
        #expect(body.contains("name=\"attachment\"; filename=\"crash.log\""))
        #expect(body.contains("stack trace"))
    }

    @Test func aDownloadLandsInItsFolder() async throws {
        try await withServer { server in
            server.route("/v1/repos/courier/export") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/csv"),
                                           ("Content-Disposition", "attachment; filename=\"issues.csv\"")],
                                 body: .data(Data("id,title\n7,Bug\n".utf8)))
            }
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let downloads = folder.url
            let provider = issuesProvider(on: server)
            let export = try await provider.request(.export(repo: "courier", folder: downloads))
            print(export.fileURL?.path ?? "")
            let file = try #require(export.fileURL)
            #expect(file.deletingLastPathComponent().lastPathComponent == downloads.lastPathComponent)
            #expect(try String(contentsOf: file, encoding: .utf8) == "id,title\n7,Bug\n")
            #expect(export.data.isEmpty)
        }
    }

    @Test func anEndpointClosureChangesEveryRequest() async throws {
        let provider = Provider<Issues>(endpointClosure: { target in
            Provider.defaultEndpointMapping(for: target)
                .adding(newHTTPHeaderFields: ["X-App-Version": "2.1"])
        })
        let request = try provider.endpoint(.list(repo: "courier", page: 1)).urlRequest()
        #expect(request.value(forHTTPHeaderField: "X-App-Version") == "2.1")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test func aMultiTargetServesAnyTarget() async throws {
        let provider = Provider<MultiTarget>(stubClosure: Provider.immediatelyStub)
        let response = try await provider.request(MultiTarget(Issues.list(repo: "courier", page: 1)))
        #expect(response.statusCode == 200)
        #expect(response.request?.url?.query == "page=1&state=open")
    }

    @Test func aTypedTargetReturnsItsMappersOutput() async throws {
        try await withServer { server in
            server.route("/v1/repos/courier/issues") { request in .text("page \(request.query("page") ?? "?")") }
            let provider = issuesProvider(on: server)
            let data: Data = try await provider.request(Issues.page(2))
            #expect(String(decoding: data, as: UTF8.self) == "page 2")
        }
    }
}
