// The "after" half of the port in the migration article
// (Core/Courier.docc/MigratingFromMoya.md), compiled and run here. The article
// shows exactly the lines between the two markers; the last test checks that it
// still does.

// README: begin
import Courier
import CourierAuth
import CourierCodable
import Foundation
import Testing

enum Shop: TargetType, AccessTokenAuthorizable {
    case products(page: Int)
    case order(id: Int)

    var baseURL: URL { URL(string: "https://shop.example.com/api")! }
    var path: String {
        switch self {
        case .products: "/products"
        case .order(let id): "/orders/\(id)"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask {
        switch self {
        case .products(let page): .requestParameters(parameters: ["page": page], encoding: URLEncoding.queryString)
        case .order: .requestPlain
        }
    }
    var headers: [String: String]? { ["Accept": "application/json"] }
    var validationType: ValidationType { .successCodes }
    var sampleData: Data { Data(#"{"id": 7, "total": 12.5}"#.utf8) }
    var authorizationType: AuthorizationType? {
        switch self {
        case .products: nil
        case .order: .bearer
        }
    }
}

struct Order: Decodable, Sendable {
    let id: Int
    let total: Double
}

/// Stamps every request with an ID (a Moya plugin's `prepare`).
struct RequestIDPlugin: Plugin {
    func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        var request = request
        request.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-ID")
        return request
    }
}

func loadOrder(_ id: Int, token: String) async throws(NetworkError) -> Order {
    let provider = Provider<Shop>(plugins: [AccessTokenPlugin { _ in token }, RequestIDPlugin()])
    return try await provider.request(.order(id: id)).map(Order.self)
}

@Test func anOrderDecodesFromItsSample() async throws {
    let provider = Provider<Shop>(stubClosure: Provider.immediatelyStub)
    let order = try await provider.request(.order(id: 7)).map(Order.self)
    #expect(order.total == 12.5)
}
// README: end

@Test func theMigrationArticleShowsThisFilesPort() throws {
    let here = URL(fileURLWithPath: #filePath)
    let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let article = try String(contentsOf: root.appendingPathComponent("Core/Courier.docc/MigratingFromMoya.md"), encoding: .utf8)
    let source = try String(contentsOf: here, encoding: .utf8)
    let begin = try #require(source.range(of: "// README: begin\n"))
    let end = try #require(source.range(of: "// README: end\n", range: begin.upperBound..<source.endIndex))
    let port = String(source[begin.upperBound..<end.lowerBound])
    #expect(article.contains("```swift\n" + port + "```\n"))
}
