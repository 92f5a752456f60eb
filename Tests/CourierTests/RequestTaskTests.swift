import Courier
import CourierTestSupport
import Foundation
import Testing

/// Every `RequestTask` case, as the loopback server received it.
@Suite struct RequestTaskTests {
    let provider = Provider<TestTarget>()

    private func send(_ task: RequestTask, method: HTTPMethod = .post, headers: [String: String]? = nil,
                      on server: LoopbackServer) async throws -> RecordedRequest {
        _ = try await provider.request(TestTarget(server.baseURL, path: "/echo", method: method, task: task, headers: headers))
        return try #require(server.requests(to: "/echo").last)
    }

    @Test func plainSendsNoBody() async throws {
        try await withServer { server in
            let request = try await send(.requestPlain, method: .get, on: server)
            #expect(request.method == "GET")
            #expect(request.body.isEmpty)
            #expect(request.rawQuery == nil)
        }
    }

    @Test func dataIsSentByteForByte() async throws {
        try await withServer { server in
            let bytes = LoopbackServer.bytes(count: 4099, seed: 3)
            let request = try await send(.requestData(bytes), on: server)
            #expect(request.body == bytes)
            #expect(request.header("Content-Length") == "4099")
        }
    }

    @Test func encodableIsSentAsJSON() async throws {
        struct Payload: Encodable, Sendable { let name: String; let tags: [String] }
        try await withServer { server in
            let request = try await send(.requestJSONEncodable(Payload(name: "Ada", tags: ["math"])), on: server)
            #expect(request.header("Content-Type") == "application/json")
            let decoded = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
            #expect(decoded?["name"] as? String == "Ada")
            #expect(decoded?["tags"] as? [String] == ["math"])
        }
    }

    @Test func customEncoderIsUsed() async throws {
        struct Event: Encodable, Sendable { let at: Date; let camelCase: Int }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        try await withServer { server in
            let event = Event(at: Date(timeIntervalSince1970: 0), camelCase: 1)
            let request = try await send(.requestCustomJSONEncodable(event, encoder: encoder), on: server)
            #expect(request.bodyText == #"{"at":"1970-01-01T00:00:00Z","camel_case":1}"#)
        }
    }

    @Test func urlEncodedParametersGoIntoTheQueryForGET() async throws {
        try await withServer { server in
            let parameters: Parameters = ["q": "swift & nio", "page": 2, "tags": ["a", "b"], "filter": ["lang": "en"], "on": true]
            let request = try await send(.requestParameters(parameters: parameters, encoding: URLEncoding.default), method: .get, on: server)
            #expect(request.rawQuery == "filter%5Blang%5D=en&on=1&page=2&q=swift%20%26%20nio&tags%5B%5D=a&tags%5B%5D=b")
            #expect(request.body.isEmpty)
        }
    }

    @Test func urlEncodedParametersGoIntoAFormBodyForPOST() async throws {
        try await withServer { server in
            let request = try await send(.requestParameters(parameters: ["name": "Ada L", "age": 36], encoding: URLEncoding.default), on: server)
            #expect(request.bodyText == "age=36&name=Ada%20L")
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
            #expect(request.rawQuery == nil)
        }
    }

    @Test func jsonParametersAreSortedJSON() async throws {
        try await withServer { server in
            let request = try await send(.requestParameters(parameters: ["b": 1, "a": ["x", "y"]], encoding: JSONEncoding.default), on: server)
            #expect(request.bodyText == #"{"a":["x","y"],"b":1}"#)
            #expect(request.header("Content-Type") == "application/json")
        }
    }

    @Test func aContentTypeTheTargetSetIsKept() async throws {
        try await withServer { server in
            let request = try await send(.requestParameters(parameters: ["a": 1], encoding: JSONEncoding.default),
                                         headers: ["Content-Type": "application/vnd.api+json"], on: server)
            #expect(request.headerValues("Content-Type") == ["application/vnd.api+json"])
        }
    }

    @Test func compositeDataSendsBodyAndQuery() async throws {
        try await withServer { server in
            let request = try await send(.requestCompositeData(bodyData: Data("raw".utf8), urlParameters: ["v": 2]), on: server)
            #expect(request.bodyText == "raw")
            #expect(request.rawQuery == "v=2")
        }
    }

    @Test func compositeParametersSendBodyAndQuery() async throws {
        try await withServer { server in
            let request = try await send(.requestCompositeParameters(bodyParameters: ["name": "Ada"], bodyEncoding: JSONEncoding.default,
                                                                     urlParameters: ["draft": true]), on: server)
            #expect(request.bodyText == #"{"name":"Ada"}"#)
            #expect(request.rawQuery == "draft=1")
        }
    }

    @Test func uploadFileStreamsTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("upload.bin")
        let bytes = LoopbackServer.bytes(count: 300_000, seed: 9)
        try bytes.write(to: file)
        try await withServer { server in
            let request = try await send(.uploadFile(file), method: .put, on: server)
            #expect(request.method == "PUT")
            #expect(request.body == bytes)
        }
    }

    @Test func downloadParametersAreEncoded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            let destination = directory.file("echo.json")
            let target = TestTarget(server.baseURL, path: "/echo",
                                    task: .downloadParameters(parameters: ["file": "a b"], encoding: URLEncoding.queryString,
                                                              destination: DownloadDestinations.file(destination)))
            let response = try await provider.request(target)
            #expect(response.fileURL == destination)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: destination))
            #expect(echo.query == "file=a%20b")
        }
    }

    @Test func anEncodableThatThrowsFailsToBuildAndSendsNothing() async throws {
        struct Refuses: Encodable, Sendable {
            struct Nope: Error {}
            func encode(to encoder: any Encoder) throws { throw Nope() }
        }
        try await withServer { server in
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, method: .post, task: .requestJSONEncodable(Refuses())))
            }
            guard case .requestBuildFailed = error else {
                Issue.record("expected requestBuildFailed, got \(String(describing: error))")
                return
            }
            #expect(server.hits("/echo") == 0)
        }
    }

    @Test func parametersThatAreNotJSONFailToBuild() async throws {
        struct NotJSON: Sendable {}
        try await withServer { server in
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, method: .post,
                                                      task: .requestParameters(parameters: ["x": NotJSON()], encoding: JSONEncoding.default)))
            }
            #expect(error.map { "\($0)" }?.contains("cannot be written as JSON") == true)
            #expect(server.hits("/echo") == 0)
        }
    }
}
