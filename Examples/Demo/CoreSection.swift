import Courier
import Foundation

/// The demo API as a Courier target.
enum DemoTarget: TargetType {
    case users
    case user(id: Int)
    case createUser(name: String)
    case page(Int)
    case slow(milliseconds: Int, timeout: TimeInterval)

    nonisolated(unsafe) static var baseURL = URL(fileURLWithPath: "/")

    var baseURL: URL { DemoTarget.baseURL }

    var path: String {
        switch self {
        case .users: "/users"
        case .user(let id): "/users/\(id)"
        case .createUser: "/echo"
        case .page(let number): "/pages/\(number)"
        case .slow(let milliseconds, _): "/delay/\(milliseconds)"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .createUser: .post
        default: .get
        }
    }

    var task: RequestTask {
        switch self {
        case .createUser(let name): .requestJSONEncodable(["name": name])
        default: .requestPlain
        }
    }

    var headers: [String: String]? { ["Accept": "application/json"] }
    var validationType: ValidationType { .successCodes }

    var timeout: TimeInterval? {
        if case .slow(_, let timeout) = self { return timeout }
        return nil
    }
}

/// Plain requests, a POST, a batch, a chain, and how each kind of error looks.
func runCoreSection(_ demo: DemoContext) async {
    DemoTarget.baseURL = demo.baseURL
    let provider = Provider<DemoTarget>()

    demo.section("Core: typed targets")
    await demo.attempt("GET /users") {
        let response = try await provider.request(.users)
        demo.say("GET /users → \(response.statusCode), \(response.data.count) bytes")
        let created = try await provider.request(.createUser(name: "Barbara Liskov"))
        let echoed = try JSONSerialization.jsonObject(with: created.data) as? [String: Any]
        let body = (echoed?["body"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? "?"
        demo.say("POST /echo with a JSON body → the server received \(body)")
    }

    demo.section("Core: a batch and a chain")
    await demo.attempt("batch") {
        let users = try await provider.batch([.user(id: 1), .user(id: 2), .user(id: 3)], maxConcurrent: 2) { finished, total in
            demo.say("batch progress: \(finished)/\(total)")
        }
        demo.say("batch → \(users.map(\.statusCode))")
        let results = await provider.batchSettled([.user(id: 1), .user(id: 99)])
        demo.say("settled batch → \(results.map { result in (try? result.get()).map { "\($0.statusCode)" } ?? "failed" })")
    }
    await demo.attempt("chain") {
        let pages = try await provider.chain(.page(1)) { response in
            let page = try JSONSerialization.jsonObject(with: response.data) as? [String: Any]
            return (page?["next"] as? Int).map { .page($0) }
        }
        demo.say("chain followed \(pages.count) pages: " + pages.map { String(decoding: $0.data, as: UTF8.self) }.joined(separator: " "))
    }

    demo.section("Core: what errors look like")
    await describe(demo, "a 404 with validation") { try await provider.request(.user(id: 404)) }
    await describe(demo, "a time-out of 0.2 s") { try await provider.request(.slow(milliseconds: 2000, timeout: 0.2)) }
    let offline = Provider<MultiTarget>()
    await describe(demo, "a closed port") {
        try await offline.request(MultiTarget(Unreachable()))
    }
    await describe(demo, "a cancelled request") {
        let task = Task { try await provider.request(.slow(milliseconds: 2000, timeout: 5)) }
        task.cancel()
        return try await task.value
    }
}

/// A target on a port nothing listens on.
private struct Unreachable: TargetType {
    var baseURL: URL { URL(string: "http://127.0.0.1:1") ?? URL(fileURLWithPath: "/") }
    var path: String { "" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

private func describe(_ demo: DemoContext, _ label: String, _ body: () async throws -> Response) async {
    do {
        let response = try await body()
        demo.say("\(label): unexpectedly succeeded with \(response.statusCode)")
    } catch let error as NetworkError {
        demo.say("\(label):")
        demo.say("    \(error)")
    } catch {
        demo.say("\(label): \(error)")
    }
}
