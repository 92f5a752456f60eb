import Courier
import CourierGzip
import CourierLogging
import CourierLoopback
import CourierRetry
import Foundation
import Logging

/// The demo's plugin endpoints.
struct PluginsDemoTarget: GzipRequestCompressible {
    let baseURL: URL
    let path: String
    var method: HTTPMethod = .get
    var task: RequestTask = .requestPlain
    var headers: [String: String]? = nil
    var validationType: ValidationType { .successCodes }
}

/// Logging, a gzip upload and a retried 503.
func runPluginsSection(_ demo: DemoContext) async {
    installPluginRoutes(on: demo.server)

    demo.section("Plugins: logging (swift-log to stdout)")
    var logger = Logger(label: "courier.demo") { StreamLogHandler.standardOutput(label: $0) }
    logger.logLevel = .debug
    let logging = LoggingPlugin(.init(logger: logger, bodyLimit: 80, prettyPrintsJSON: true, logsCURL: true,
                                      redactedQueryParameters: ["api_key"]))
    await demo.attempt("GET /users with logging") {
        let provider = Provider<PluginsDemoTarget>(plugins: [logging])
        let target = PluginsDemoTarget(
            baseURL: demo.baseURL, path: "/users",
            task: .requestParameters(parameters: ["api_key": "demo-key"], encoding: URLEncoding.queryString),
            headers: ["Authorization": "Bearer demo-secret"]
        )
        _ = try await provider.request(target)
        demo.say("(the token and api_key never reach the log: they show as <redacted>)")
    }

    demo.section("Plugins: a gzip upload")
    await demo.attempt("POST /upload-gzip") {
        let report = Data(String(repeating: #"{"event":"page_view","path":"/users","ms":12},"#, count: 500).utf8)
        let provider = Provider<PluginsDemoTarget>(plugins: [GzipPlugin()])
        let target = PluginsDemoTarget(baseURL: demo.baseURL, path: "/upload-gzip", method: .post, task: .requestData(report),
                                       headers: ["Content-Type": "application/json"])
        let response = try await provider.request(target)
        demo.say("sent \(report.count) bytes of JSON; the server says: \(String(decoding: response.data, as: UTF8.self))")
    }

    demo.section("Plugins: a 503 retried with back-off")
    await demo.attempt("GET /flaky") {
        var quiet = logger
        quiet.logLevel = .info
        // Every plugin has a leading-dot factory, so a list reads like a
        // sentence; in the recommended order: logging, retry, gzip.
        let plugins: [any Plugin] = [.logging(.init(logger: quiet)), .retry(.init(maximumAttempts: 4, initialDelay: 0.05, maximumDelay: 0.2)), .gzip()]
        let provider = Provider<PluginsDemoTarget>(plugins: plugins)
        let response = try await provider.request(PluginsDemoTarget(baseURL: demo.baseURL, path: "/flaky"))
        demo.say("finally \(response.statusCode): \(String(decoding: response.data, as: UTF8.self)); \(demo.serverHits("/flaky"))")
    }
}

/// Routes for this part: a gzip-accepting upload and a route that fails
/// twice before it succeeds.
private func installPluginRoutes(on server: LoopbackServer?) {
    guard let server else { return }
    server.route("/upload-gzip") { request in
        let isGzip = request.header("Content-Encoding") == "gzip"
        do {
            let body = isGzip ? try Gzip.decompress(request.body, limit: 10 * 1024 * 1024) : request.body
            return .json(Data(#"{"received":\#(request.body.count),"decompressed":\#(body.count),"gzip":\#(isGzip)}"#.utf8))
        } catch {
            return .text("could not decompress: \(error)", status: 400)
        }
    }
    let failures = HitCounter(0)
    server.route("/flaky") { _ in
        let count = failures.increment()
        return count <= 2 ? .text("busy, try again", status: 503) : .text("ok after \(count) attempts")
    }
}

/// A counter safe to share with route handlers.
private final class HitCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int

    init(_ value: Int) {
        self.value = value
    }

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
