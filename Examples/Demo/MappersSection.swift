import Courier
import CourierCodable
import Foundation

// MARK: - The enum-of-endpoints pattern

/// The demo API's user endpoints as an enum; each case gets its output type
/// once, below, and call sites parse nothing.
private enum UserEndpoint: TargetType {
    case list, user(Int), broken

    /// The API's URL, bound by the section for the requests it makes.
    @TaskLocal static var base = URL(fileURLWithPath: "/")

    var baseURL: URL { Self.base }
    var path: String {
        switch self {
        case .list: "/users"
        case .user(let id): "/users/\(id)"
        case .broken: "/broken-json"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }

    static var allUsers: Typed<UserEndpoint, DecodableMapper<[DemoUser]>> { UserEndpoint.list.decoding([DemoUser].self) }
    static func user(id: Int) -> Typed<UserEndpoint, DecodableMapper<DemoUser>> { UserEndpoint.user(id).decoding(DemoUser.self) }
    static var brokenUser: Typed<UserEndpoint, DecodableMapper<DemoUser>> { UserEndpoint.broken.decoding(DemoUser.self) }
}

// MARK: - The generic endpoint struct

/// One generic struct, one value per endpoint: its type parameter is what the
/// request returns.
private struct APIEndpoint<Output: Decodable & Sendable>: TypedTarget {
    let baseURL: URL
    let path: String
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
    var mapper: DecodableMapper<Output> { DecodableMapper() }
}

// MARK: - The section

/// Typed endpoints decoding the demo API, and what a mapping error says.
func runMappersSection(_ demo: DemoContext) async {
    await UserEndpoint.$base.withValue(demo.baseURL) {
        await decodeTypedEndpoints(demo)
        await showMappingErrors(demo)
    }
}

private func decodeTypedEndpoints(_ demo: DemoContext) async {
    demo.section("Mappers: typed endpoints and decoding")
    let provider = Provider<UserEndpoint>()

    await demo.attempt("GET /users") {
        let users = try await provider.request(UserEndpoint.allUsers)
        demo.say("enum endpoint, GET /users → [DemoUser]: \(users.map(\.name).joined(separator: ", "))")
    }
    await demo.attempt("GET /users/2") {
        let user = try await provider.request(UserEndpoint.user(id: 2))
        demo.say("enum endpoint, GET /users/2 → DemoUser: \(user.name) <\(user.email)>")
    }
    await demo.attempt("GET /users/3") {
        let endpoint = APIEndpoint<DemoUser>(baseURL: demo.baseURL, path: "/users/3")
        let user = try await Provider<APIEndpoint<DemoUser>>().request(endpoint)
        demo.say("generic endpoint struct, APIEndpoint<DemoUser> → \(user.name)")
    }

}

private func showMappingErrors(_ demo: DemoContext) async {
    demo.section("Mappers: what a mapping error says")
    let provider = Provider<UserEndpoint>()
    do {
        _ = try await provider.request(UserEndpoint.brokenUser)
        demo.say("GET /broken-json unexpectedly decoded")
    } catch {
        demo.say("GET /broken-json as DemoUser:")
        demo.say("  \(error)")
        if case .mappingFailed(let response, let failure as DecodingFailure) = error {
            demo.say("  the failure alone: \(failure) (the \(response.data.count)-byte response is attached)")
        }
    }
    await demo.attempt("GET /users/99") {
        _ = try await provider.request(UserEndpoint.user(id: 99))
    }
}
