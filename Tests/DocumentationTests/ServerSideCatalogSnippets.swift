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
import OpenAPIRuntime
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

    @Test func eventStreamOperationsArriveAsTheyAreSent() async throws {
        try await withServer { server in
            server.route("/api/events") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream")],
                                 body: .streamed { writer in try await writer.write("data: Hello, Ada!\n\n") })
            }
            server.route("/api/news") { _ in .json(["headlines": ["Courier streams"]]) }
            let serverURL = server.url("/api")
            let provider = Provider<OpenAPIOperation>()
            var printed: [String] = []
            func print(_ text: String) { printed.append(text) }

            let transport = CourierClientTransport(
                provider: provider,
                configuration: .init(collectedResponseOperations: ["getNews"])  // cached
            )
            let client = Client(serverURL: serverURL, transport: transport)
            // An event-stream operation, read as the events arrive:
            let events = try await client.getEvents().ok.body.textEventStream
                .asDecodedServerSentEvents()
            for try await event in events {
                print(event.data ?? "")
            }

            #expect(printed == ["Hello, Ada!"])
            #expect(try await client.getNews().ok.body.json.headlines == ["Courier streams"])
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
