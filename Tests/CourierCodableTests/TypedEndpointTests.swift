import Courier
import CourierCodable
import CourierTestSupport
import Foundation
import Testing

private struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

private let users = [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")]

private func installUsers(on server: LoopbackServer) {
    server.route("/users") { _ in .json(users) }
    server.route("/users/", prefix: true) { request in
        let id = Int(request.path.split(separator: "/").last ?? "") ?? 0
        return .json(users.first { $0.id == id })
    }
    server.route("/count") { _ in .json(Data(#"{"data":{"count":2}}"#.utf8)) }
}

// MARK: - The enum-of-endpoints pattern

/// Endpoints as enum cases; each gets its output type once, in an extension.
private enum UserAPI: TargetType {
    case list, user(Int), count

    /// The loopback server's URL, set per test, so parallel tests never share it.
    @TaskLocal static var base = URL(fileURLWithPath: "/")
    var baseURL: URL { Self.base }
    var path: String {
        switch self {
        case .list: "/users"
        case .user(let id): "/users/\(id)"
        case .count: "/count"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }

    static var allUsers: Typed<UserAPI, DecodableMapper<[User]>> { UserAPI.list.decoding([User].self) }
    static func user(id: Int) -> Typed<UserAPI, DecodableMapper<User>> { UserAPI.user(id).decoding(User.self) }
    static var userCount: Typed<UserAPI, DecodableMapper<Int>> { UserAPI.count.decoding(Int.self, atKeyPath: "data.count") }
}

// MARK: - The generic endpoint struct

/// One generic struct, one value per endpoint: the type parameter is the output.
private struct Endpoint<Output: Decodable & Sendable>: TypedTarget {
    let baseURL: URL
    let path: String
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var mapper: DecodableMapper<Output> { DecodableMapper() }
}

extension Endpoint where Output == [User] {
    static func users(_ base: URL) -> Endpoint { Endpoint(baseURL: base, path: "/users") }
}

extension Endpoint where Output == User {
    static func user(_ id: Int, _ base: URL) -> Endpoint { Endpoint(baseURL: base, path: "/users/\(id)") }
}

@Suite struct TypedEndpointTests {
    @Test func enumEndpointsReturnTheirOwnTypes() async throws {
        try await withServer { server in
            installUsers(on: server)
            try await UserAPI.$base.withValue(server.baseURL) {
                let provider = Provider<UserAPI>()
                let all = try await provider.request(UserAPI.allUsers)
                let grace = try await provider.request(UserAPI.user(id: 2))
                let count = try await provider.request(UserAPI.userCount)
                #expect(all == users)
                #expect(grace == User(id: 2, name: "Grace"))
                #expect(count == 2)
            }
        }
    }

    @Test func genericEndpointStructsReturnTheirOutput() async throws {
        try await withServer { server in
            installUsers(on: server)
            let ada = try await Provider<Endpoint<User>>().request(.user(1, server.baseURL))
            let all = try await Provider<Endpoint<[User]>>().request(.users(server.baseURL))
            #expect(ada == User(id: 1, name: "Ada"))
            #expect(all.map(\.name) == ["Ada", "Grace"])
        }
    }

    @Test func aTypedEndpointsMappingFailureCarriesTheResponse() async throws {
        try await withServer { server in
            installUsers(on: server)
            let wrong = Endpoint<Int>(baseURL: server.baseURL, path: "/users/1")
            let error = await #expect(throws: NetworkError.self) {
                try await Provider<Endpoint<Int>>().request(wrong)
            }
            guard case .mappingFailed(let response, let failure as DecodingFailure) = error else {
                Issue.record("expected a decoding failure, got \(String(describing: error))")
                return
            }
            #expect(response.statusCode == 200)
            #expect(failure.description == "expected Int at the top level, found an object")
        }
    }
}
