// The code of Mappers/YAML/CourierYAML.docc/CourierYAML.md.
// Needs the test target to depend on CourierYAML.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierYAML

struct ServiceConfig: Decodable, Sendable {
    let name: String
    let replicas: Int
}

@Suite struct CourierYAMLCatalogSnippets {
    @Test func aYAMLBodyDecodes() async throws {
        try await withServer { server in
            server.route("/config") { _ in
                LoopbackResponse(headers: [("Content-Type", "application/yaml")],
                                 body: .data(Data("name: web\nreplicas: 3\n".utf8)))
            }
            let provider = Provider<API>()
            let configTarget = API(baseURL: server.baseURL, path: "/config")
            let config = try await provider.request(configTarget, decodingYAML: ServiceConfig.self)
            #expect(config.name == "web")
            #expect(config.replicas == 3)
        }
    }
}
