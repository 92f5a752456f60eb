// The code of the Streaming article and the README's Streaming section.

import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import Testing

private enum StreamAPI: TargetType {
    case completion(prompt: String)
    case export
    case notifications

    var baseURL: URL { StreamAPI.server }
    nonisolated(unsafe) static var server = URL(fileURLWithPath: "/")
    var path: String {
        switch self {
        case .completion: "/completions"
        case .export: "/export"
        case .notifications: "/notifications"
        }
    }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
}

@Suite(.serialized) struct StreamingSnippets {
    @Test func tokensArriveAsEvents() async throws {
        try await withServer { server in
            StreamAPI.server = server.baseURL
            server.route("/completions") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream")], body: .streamed { writer in
                    try await writer.write("data: {\"text\":\"Hel\"}\n\n")
                    try await writer.write("data: {\"text\":\"lo\"}\n\ndata: [DONE]\n\n")
                })
            }
            let provider = Provider<StreamAPI>()
            var printed = ""
            func print(_ text: String, terminator: String) { printed += text + terminator }

            struct Delta: Decodable, Sendable { let text: String }

            let response = try await provider.stream(.completion(prompt: "Hello"))
            for try await event in response.serverSentEvents {
                if event.data == "[DONE]" { break }
                let delta = try event.decode(Delta.self)
                print(delta.text, terminator: "")
            }

            #expect(printed == "Hello")
        }
    }

    @Test func jsonLinesAddUp() async throws {
        try await withServer { server in
            StreamAPI.server = server.baseURL
            server.route("/export") { _ in
                LoopbackResponse(body: .streamed { writer in
                    try await writer.write("{\"id\":1,\"amount\":2.5}\n{\"id\":2,")
                    try await writer.write("\"amount\":4}\n")
                })
            }
            let provider = Provider<StreamAPI>()

            struct Row: Decodable, Sendable { let id: Int; let amount: Double }

            var total = 0.0
            for try await row in try await provider.stream(.export).jsonLines(of: Row.self) {
                total += row.amount
            }

            #expect(total == 6.5)
        }
    }

    @Test func eventStreamsReconnect() async throws {
        try await withServer { server in
            StreamAPI.server = server.baseURL
            server.route("/notifications") { request in
                request.header("Last-Event-ID") == nil
                    ? LoopbackResponse(body: .data(Data("retry: 1\nid: 1\ndata: first\n\n".utf8)))
                    : LoopbackResponse(status: 204)
            }
            let provider = Provider<StreamAPI>()
            var printed: [String] = []
            func print(_ id: String, _ data: String) { printed.append("\(id) \(data)") }

            let events = try await provider.serverSentEvents(.notifications,
                                                             reconnection: .init(maximumAttempts: 5))
            for try await event in events {
                print(event.id ?? "-", event.data)
            }

            #expect(printed == ["1 first"])
        }
    }

    /// "Sending a body as it is made": rows produced while the upload runs.
    @Test func aBodyIsSentAsItIsMade() async throws {
        try await withServer { server in
            Exports.server = server.baseURL
            try await withStarted({ AsyncHTTPClientTransport() }, shutdown: { try await $0.shutdown() }) { transport in
                let rows = AsyncStream<Data> { continuation in
                    for row in ["id,name\n", "1,Ada\n", "2,Grace\n"] { continuation.yield(Data(row.utf8)) }
                    continuation.finish()
                }
                let provider = Provider<Exports>(transport: transport)
                let echo = try Echo(try await provider.request(.upload(rows)))
                #expect(echo.bodyText == "id,name\n1,Ada\n2,Grace\n")
                #expect(echo.header("Transfer-Encoding") == "chunked")
            }
        }
    }
}

enum Exports: TargetType {
    case upload(AsyncStream<Data>)

    var task: RequestTask {
        switch self {
        case .upload(let rows): .uploadStream(RequestBodyStream(rows, length: .unknown))
        }
    }
    // baseURL, path, method and headers as for any target
}

extension Exports {
    nonisolated(unsafe) static var server = URL(fileURLWithPath: "/")
    var baseURL: URL { Exports.server }
    var path: String { "/echo" }
    var method: HTTPMethod { .post }
    var headers: [String: String]? { ["Content-Type": "text/csv"] }
}
