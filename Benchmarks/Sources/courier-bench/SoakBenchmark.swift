import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierAuth
import CourierCache
import CourierGzip
import CourierLogging
import CourierRetry
import Foundation
import Logging
import NIOPosix

/// Item 7: a soak. 10,000 requests, 128 at a time, through every shipped
/// plugin (logging to a handler that drops every line, auth, retry, a memory
/// cache, gzip), on each transport, against the bench server. It reports the
/// errors (there must be none) and the process's peak resident memory after
/// the first 1,000 requests and at the end: a leak shows as a peak that keeps
/// rising. The row's ratio is end / first-1,000 (at most 1.10 to pass).
struct SoakBenchmark {
    let baseURL: URL
    let quick: Bool

    /// `GET /json?item=N` with a bearer token: every request goes through
    /// the auth plugin, and a hundred URLs keep the cache busy.
    struct SoakTarget: TargetType, AccessTokenAuthorizable {
        var baseURL: URL
        var item: Int
        var path: String { "/json" }
        var method: HTTPMethod { .get }
        var task: RequestTask { .requestParameters(parameters: ["item": item], encoding: URLEncoding.queryString) }
        var headers: [String: String]? { ["Accept": "application/json"] }
        var validationType: ValidationType { .successCodes }
        var authorizationType: AuthorizationType? { .bearer }
    }

    /// A swift-log handler that formats nothing and keeps nothing, at debug:
    /// the logging plugin does all its work, the lines go nowhere.
    struct NullLogHandler: LogHandler {
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {}
    }

    func run() async throws -> [Row] {
        let total = quick ? 2_000 : (ProcessInfo.processInfo.environment["COURIER_SOAK_REQUESTS"].flatMap(Int.init) ?? 10_000)
        let warmUp = total / 10
        var rows: [Row] = []
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        for (name, transport) in [("URLSessionTransport", URLSessionTransport() as any Transport),
                                  ("AsyncHTTPClientTransport", AsyncHTTPClientTransport(client: client))] {
            let (errors, afterWarmUp, atEnd) = try await soak(transport, total: total, warmUp: warmUp)
            log("  soak \(name): \(total) requests, 128 at a time, \(errors) errors; peak RSS \(afterWarmUp) MiB after \(warmUp), \(atEnd) MiB at the end")
            rows.append(Row(name: "soak \(name): peak RSS end vs after \(warmUp) (\(errors) errors)", unit: "MiB",
                            courier: Double(atEnd), bare: Double(afterWarmUp), higherIsBetter: false))
        }
        try await client.shutdown()
        return rows
    }

    private func soak(_ transport: any Transport, total: Int, warmUp: Int) async throws -> (errors: Int, afterWarmUp: Int, atEnd: Int) {
        var logger = Logger(label: "courier.soak") { _ in NullLogHandler() }
        logger.logLevel = .debug
        let store = InMemoryCredentialStore(Credential(accessToken: "soak-token", refreshToken: "soak-refresh", expiresIn: 3_600))
        let provider = Provider<SoakTarget>(transport: transport, plugins: [
            LoggingPlugin(.init(logger: logger)),
            AuthPlugin(store: store) { credential in credential },
            RetryPlugin(),
            CachePlugin(storage: MemoryResponseCache()),
            GzipPlugin(),
        ])
        var errors = 0
        var afterWarmUp = 0
        resetPeakResident()
        var checkpoints: [String] = []
        var next = 0
        var done = 0
        try await withThrowingTaskGroup(of: Bool.self) { group in
            func submit() {
                let item = next
                next += 1
                group.addTask {
                    do {
                        _ = try await provider.request(SoakTarget(baseURL: baseURL, item: item % 100))
                        return true
                    } catch {
                        return false
                    }
                }
            }
            for _ in 0..<min(128, total) { submit() }
            while let succeeded = try await group.next() {
                done += 1
                if !succeeded { errors += 1 }
                if done == warmUp { afterWarmUp = peakResidentKilobytes() / 1024 }
                if done % (total / 10) == 0 { checkpoints.append("\(done): \(peakResidentKilobytes() / 1024)") }
                if next < total { submit() }
            }
        }
        log("    peak RSS (MiB) after each tenth: " + checkpoints.joined(separator: ", "))
        return (errors, afterWarmUp, peakResidentKilobytes() / 1024)
    }
}
