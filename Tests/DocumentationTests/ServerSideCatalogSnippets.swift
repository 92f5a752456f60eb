// The code of the CourierOpenAPI, CourierTracing and CourierMetrics catalogs.

import Courier
import CourierAuth
import CourierMetrics
import CourierOpenAPI
import CourierRetry
import CourierTestSupport
import CourierTracing
import Foundation
import GreetingsAPI
import Testing

@Suite struct ServerSideCatalogSnippets {
    @Test func openAPIClientThroughAProvider() async throws {
        try await withServer { server in
            server.route("/api/greetings/", prefix: true) { request in
                request.header("Authorization") == "Bearer fresh" ? .json(["message": "Hello, Ada!"]) : .text("", status: 401)
            }
            let serverURL = server.url("/api")
            let store = InMemoryCredentialStore(Credential(accessToken: "old", refreshToken: "r"))
            let renew: AuthPlugin.Refresh = { _ in Credential(accessToken: "fresh", refreshToken: "r2") }

            let provider = Provider<OpenAPIOperation>(plugins: [
                .auth(store, configuration: .init(defaultAuthorizationType: .bearer), refresh: renew),
                RetryPlugin(),
            ])
            let client = Client(serverURL: serverURL, transport: CourierClientTransport(provider: provider))
            let greeting = try await client.getGreeting(path: .init(name: "Ada"))

            #expect(try greeting.ok.body.json.message == "Hello, Ada!")
        }
    }

    @Test func tracingAndMetricsGoFirst() async throws {
        try await withServer { server in
            try await traced(server)
            try await counted(server)
        }
    }

    func traced(_ server: LoopbackServer) async throws {
        let provider = Provider<API>(plugins: [TracingPlugin(), RetryPlugin()])
        let response = try await provider.request(API(baseURL: server.url("/echo")))
        #expect(response.statusCode == 200)
    }

    func counted(_ server: LoopbackServer) async throws {
        let provider = Provider<API>(plugins: [MetricsPlugin(), RetryPlugin()])
        let response = try await provider.request(API(baseURL: server.url("/echo")))
        #expect(response.statusCode == 200)
    }
}
