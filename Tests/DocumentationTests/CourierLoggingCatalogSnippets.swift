// The code of Plugins/Logging/CourierLogging.docc/CourierLogging.md.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierLogging
import Logging

/// Keeps the messages a logger receives, for assertions.
final class LoggedMessages: Sendable {
    private let messages = Mutex<[String]>([])

    var all: [String] { messages.withLock { $0 } }

    func append(_ message: String) {
        messages.withLock { $0.append(message) }
    }

    /// A logger at `level` that writes here.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "courier.docs") { _ in CollectingLogHandler(messages: self) }
        logger.logLevel = level
        return logger
    }
}

/// A `LogHandler` that hands every message to a ``LoggedMessages``.
struct CollectingLogHandler: LogHandler {
    let messages: LoggedMessages
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.append(event.message.description)
    }
}

@Suite struct CourierLoggingCatalogSnippets {
    @Test func theExampleLogsARequest() async throws {
        try await withServer { server in
            server.route("/search") { _ in .json(Data(#"{"results": []}"#.utf8)) }
            var logger = Logger(label: "api")
            logger.logLevel = .debug
            let logging = LoggingPlugin(.init(logger: logger, logsCURL: true, redactedQueryParameters: ["api_key", "token"]))
            let provider = Provider<API>(plugins: [logging])
            let search = API(baseURL: server.baseURL, path: "/search",
                             task: .requestParameters(parameters: ["q": "swift", "api_key": "s3cr3t"], encoding: URLEncoding.queryString))
            let response = try await provider.request(search)
            #expect(response.statusCode == 200)
        }
    }

    @Test func secretsAreRedacted() async throws {
        try await withServer { server in
            server.route("/search") { _ in .json(Data(#"{"results": []}"#.utf8)) }
            let messages = LoggedMessages()
            let logging = LoggingPlugin(.init(logger: messages.logger(level: .info), redactedQueryParameters: ["api_key", "token"]))
            let provider = Provider<API>(plugins: [logging])
            let search = API(baseURL: server.baseURL, path: "/search",
                             task: .requestParameters(parameters: ["q": "swift", "api_key": "s3cr3t"], encoding: URLEncoding.queryString))
            _ = try await provider.request(search)
            let lines = messages.all
            #expect(lines.count == 2)
            #expect(lines.first?.hasPrefix("--> GET ") == true)
            #expect(lines.last?.hasPrefix("<-- GET ") == true)
            #expect(lines.allSatisfy { $0.contains("api_key=<redacted>") && !$0.contains("s3cr3t") })
        }
    }
}
