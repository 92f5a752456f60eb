import Courier
import CourierCodable
import Foundation

// Decodes a stubbed response, so the example runs without a server: what
// matters is what it links (Courier and CourierCodable, nothing else).

struct Greeting: Decodable, Sendable {
    let message: String
}

struct Hello: TypedTarget {
    // Never contacted: the provider answers from `sampleData`.
    var baseURL: URL { URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/") }
    var path: String { "hello" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var sampleData: Data { Data(#"{"data":{"message":"Hello from a stub"}}"#.utf8) }
    var mapper: DecodableMapper<Greeting> { DecodableMapper(atKeyPath: "data") }
}

let provider = Provider<Hello>(stubClosure: Provider.immediatelyStub)
do {
    let greeting = try await provider.request(Hello())
    print(greeting.message)
} catch {
    print(error)
}
