import Courier
import CourierTestSupport
import CourierYAML
import Foundation
import Testing

private struct ServiceConfig: Decodable, Equatable, Sendable {
    struct Service: Decodable, Equatable, Sendable {
        let image: String
        let ports: [Int]
    }

    let version: String
    let services: [String: Service]
}

private let configYAML = """
version: "3.9"
services:
  web:
    image: nginx:1.27
    ports: [80, 443]
  db:
    image: postgres:17
    ports:
      - 5432
"""

private func serve<T: Sendable>(_ yaml: String, _ run: @Sendable (Provider<TestTarget>, TestTarget) async throws -> T) async throws -> T {
    try await withServer { server in
        server.route("/config.yaml") { _ in
            LoopbackResponse(headers: [("Content-Type", "application/yaml")], body: .data(Data(yaml.utf8)))
        }
        return try await run(Provider<TestTarget>(), TestTarget(server.baseURL, path: "/config.yaml"))
    }
}

private func failure(_ error: NetworkError?) throws -> YAMLMappingFailure {
    guard case .mappingFailed(let response, let underlying) = try #require(error) else {
        Issue.record("expected .mappingFailed, got \(String(describing: error))")
        throw try #require(error)
    }
    #expect(response.statusCode == 200)
    #expect(!response.data.isEmpty)
    return try #require(underlying as? YAMLMappingFailure)
}

@Suite struct YAMLDecodableMapperTests {
    @Test func decodesYAML() async throws {
        let config = try await serve(configYAML) { provider, target in
            try await provider.request(target, decodingYAML: ServiceConfig.self)
        }
        #expect(config.version == "3.9")
        #expect(config.services["web"]?.ports == [80, 443])
        #expect(config.services["db"] == ServiceConfig.Service(image: "postgres:17", ports: [5432]))
    }

    @Test func invalidYAMLIsAMappingFailure() async throws {
        let error = await #expect(throws: NetworkError.self) {
            try await serve("version: [1, 2\nservices: {web: ") { provider, target in
                try await provider.request(target, decodingYAML: ServiceConfig.self)
            }
        }
        let reason = try failure(error)
        #expect(reason.description.hasPrefix("the body is not valid YAML"))
        #expect(reason.description.contains("line 1"))
    }

    @Test func aWrongTypeSaysWhere() async throws {
        let wrong = configYAML.replacingOccurrences(of: "- 5432", with: "- not-a-port")
        let error = await #expect(throws: NetworkError.self) {
            try await serve(wrong) { provider, target in
                try await provider.request(target, mapper: YAMLDecodableMapper<ServiceConfig>())
            }
        }
        let reason = try failure(error)
        #expect(reason.path == "services.db.ports[0]")
        #expect(reason.description.hasPrefix("expected Int at services.db.ports[0]"))
    }
}
