// The code of Core/Courier.docc/GettingStarted.md.

import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Courier
import CourierCodable

enum GitHub: TargetType {
    case user(String)

    var baseURL: URL { URL(string: "https://api.github.com")! }
    var path: String {
        switch self {
        case .user(let name): "/users/\(name)"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { ["Accept": "application/vnd.github+json"] }
    var validationType: ValidationType { .successCodes }
    var sampleData: Data { Data(#"{"login": "octocat", "id": 1}"#.utf8) }
}

struct User: Decodable, Sendable {
    let login: String
    let id: Int
}

/// The article's first request, against the real GitHub API: compiled, never
/// run by the tests (they use no network but the loopback one).
func gettingStartedFirstRequest() async {
    let provider = Provider<GitHub>()
    do throws(NetworkError) {
        let user = try await provider.request(.user("octocat"), decoding: User.self)
        print(user.login)
    } catch .statusCode(let response) {
        print("The server said \(response.statusCode)")
    } catch {
        print(error) // one sentence: what happened and what to do
    }
}

@Suite struct GettingStartedSnippets {
    @Test func theFirstRequestBuildsTheTargetsURL() throws {
        let request = try Provider<GitHub>().endpoint(.user("octocat")).urlRequest()
        #expect(request.url?.absoluteString == "https://api.github.com/users/octocat")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/vnd.github+json")
    }

    @Test func aStubAnswersWithTheSampleData() async throws {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        let user = try await provider.request(.user("octocat"), decoding: User.self)
        // user.login == "octocat", from sampleData; nothing was sent
        #expect(user.login == "octocat")
        #expect(user.id == 1)

        let response = try await provider.request(.user("octocat"))
        print(response.statusCode, response.data.count)
        let contentType = response.value(forHTTPHeaderField: "Content-Type")
        #expect(response.statusCode == 200)
        #expect(contentType == nil)
    }

    @Test func theCompletionHandlerFormRunsOnce() async throws {
        let provider = Provider<GitHub>(stubClosure: Provider.delayedStub(0.5))
        let call = provider.request(.user("octocat")) { result in
            switch result {
            case .success(let response): print(response.statusCode)
            case .failure(let error): print(error)
            }
        }
        call.cancel() // the completion receives .failure(.cancelled) if it has not run yet
        #expect(call.isCancelled)
    }

    @Test func theCompletionReceivesTheResponse() async throws {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        let received = Box<Int>()
        provider.request(.user("octocat")) { result in
            if case .success(let response) = result { received.set(response.statusCode) }
        }
        try await waitUntil("the completion runs", within: 30) { received.value != nil }
        #expect(received.value == 200)
    }
}
