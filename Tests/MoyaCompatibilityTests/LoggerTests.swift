import Courier
import CourierLogging
import CourierTestSupport
import Foundation
import Logging
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moya's network-logger spec, against `LoggingPlugin`: the same facts are
/// logged (URL, method, headers, bodies, a cURL line, the response, the
/// failure), in Courier's own format, through swift-log.
@Suite struct LoggerTests {
    final class Lines: LogHandler, @unchecked Sendable {
        private let storage = Mutex<[String]>([])
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            storage.withLock { $0.append(event.message.description) }
        }

        var text: String { storage.withLock { $0.joined(separator: "\n") } }
    }

    private static func logged(
        _ target: TestTarget,
        sample: EndpointSampleResponse = .networkResponse(200, Data("cool body".utf8)),
        requestClosure: Provider<TestTarget>.RequestClosure? = nil,
        configure: (inout LoggingPlugin.Configuration) -> Void = { _ in }
    ) async -> String {
        let lines = Lines()
        var logger = Logger(label: "courier.moya") { _ in lines }
        logger.logLevel = .debug
        var configuration = LoggingPlugin.Configuration(logger: logger)
        configure(&configuration)
        let provider = Provider<TestTarget>(
            endpointClosure: { Provider<TestTarget>.defaultEndpointMapping(for: $0).replacing(sampleResponse: sample) },
            requestClosure: requestClosure ?? Provider<TestTarget>.defaultRequestMapping,
            stubClosure: Provider.immediatelyStub,
            plugins: [LoggingPlugin(configuration)]
        )
        _ = try? await provider.request(target)
        return lines.text
    }

    private static let zen = URL(string: "https://api.github.com")!
    private static let bodyTarget = TestTarget(zen, path: "/zen", task: .requestData(Data("cool body".utf8)),
                                               headers: ["Content-Type": "application/json"])

    @Test func theRequestIsLoggedWithItsMethodHeadersAndBody() async {
        let log = await Self.logged(Self.bodyTarget)
        #expect(log.contains("GET https://api.github.com/zen"))
        #expect(log.contains("Content-Type: application/json"))
        #expect(log.contains("cool body"))
    }

    @Test func aStreamedBodyIsNamedNotRead() async {
        let log = await Self.logged(TestTarget(Self.zen, path: "/zen"), requestClosure: { endpoint in
            var request = try endpoint.urlRequest()
            request.httpBodyStream = InputStream(data: Data("cool body".utf8))
            return request
        })
        #expect(log.contains("<streamed body>"))
    }

    @Test func theResponseIsLoggedWithItsStatusURLAndBody() async {
        let log = await Self.logged(TestTarget(Self.zen, path: "/zen"))
        #expect(log.contains("<-- GET https://api.github.com/zen 200"))
        #expect(log.contains("cool body"))
    }

    @Test func aRefusedStatusIsLoggedAsAResponseWithItsBody() async {
        let target = TestTarget(Self.zen, path: "/zen", validationType: .successCodes)
        let log = await Self.logged(target, sample: .networkResponse(500, Data("Internal error".utf8)))
        #expect(log.contains("<-- GET https://api.github.com/zen 500"))
        #expect(log.contains("Internal error"))
    }

    @Test func aFailureIsLoggedWithWhatWentWrong() async {
        let log = await Self.logged(TestTarget(Self.zen, path: "/zen"), sample: .networkError(URLError(.cannotParseResponse)))
        #expect(log.contains("<-- GET https://api.github.com/zen failed after"))
        #expect(log.contains("not valid HTTP"))
    }

    @Test func theRequestCanBeLoggedAsACURLCommand() async {
        let log = await Self.logged(Self.bodyTarget, configure: { $0.logsCURL = true })
        #expect(log.contains("curl"))
        #expect(log.contains("-H 'Content-Type: application/json'"))
        #expect(log.contains("cool body"))
        #expect(log.contains("https://api.github.com/zen"))
    }

    @Test func bodyFormattersReplaceTheBuiltInFormattingButNotTheRedaction() async {
        let log = await Self.logged(Self.bodyTarget, configure: { configuration in
            configuration.requestBodyFormatter = { _ in "formatted request body {\"password\": \"hunter2\"}" }
            configuration.responseBodyFormatter = { _ in "formatted response body" }
        })
        #expect(log.contains("formatted request body"))
        #expect(log.contains("formatted response body"))
        #expect(!log.contains("cool body"))
        #expect(!log.contains("hunter2")) // a formatter cannot print a redacted field
    }
}
