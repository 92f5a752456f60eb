import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierAuth
import CourierCache
import CourierGzip
import CourierLogging
import CourierMetrics
import CourierRetry
import CourierTracing
import Foundation
import Logging
import NIOPosix

/// Item 7: a soak. 10,000 requests (`COURIER_SOAK_REQUESTS`), 128 at a
/// time, through every shipped plugin (logging at debug to a handler that
/// drops every line, tracing, metrics, auth, retry, a memory cache, gzip) on
/// each transport, against the bench server, and the same requests through
/// the bare client. Each row is the growth of the peak resident memory per
/// request after the first tenth (the warm-up), fitted over the tenths:
/// Courier's beside the bare client's. A leak shows as a slope; pools and
/// caches that fill once do not. `COURIER_SOAK_PLUGIN=logging` (or `auth`,
/// `retry`, `cache`, `gzip`, `tracing`, `metrics`) soaks one plugin alone.
///
/// Then the cost of logging: CPU per request on AsyncHTTPClient with the
/// logging plugin at info and at debug, against the same provider without
/// it, in interleaved rounds.
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
        let alone = ProcessInfo.processInfo.environment["COURIER_SOAK_PLUGIN"]
        var rows: [Row] = []
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let session = URLSession(configuration: .ephemeral)
        let sides: [(String, any Transport, @Sendable (URL) async throws -> Void)] = [
            ("URLSessionTransport", URLSessionTransport(), { url in _ = try await session.data(from: url) }),
            ("AsyncHTTPClientTransport", AsyncHTTPClientTransport(client: client), { url in
                let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
            }),
        ]
        for (name, transport, bare) in sides {
            let provider = Provider<SoakTarget>(transport: transport, plugins: Self.plugins(alone))
            let courier = try await soak(total: total) { item in
                _ = try await provider.request(SoakTarget(baseURL: baseURL, item: item))
            }
            let bareSoak = try await soak(total: total) { item in
                try await bare(baseURL.appendingPathComponent("json").appending(queryItems: [.init(name: "item", value: "\(item)")]))
            }
            let plugins = alone ?? "every plugin"
            log("  soak \(name), \(plugins): \(total) requests, 128 at a time, \(courier.errors) errors; "
                + String(format: "%.1f bytes a request after the first tenth (bare client: %.1f)", courier.slope, bareSoak.slope))
            rows.append(Row(name: "soak \(name), \(plugins): peak RSS growth a request after warm-up (\(courier.errors) errors)",
                            unit: "B/req", courier: courier.slope, bare: bareSoak.slope, higherIsBetter: false))
        }
        // One plugin alone is soaked for its memory; the logging rows are
        // about every call's CPU, and would only lengthen the run.
        if alone == nil { rows += try await loggingCost(client: client) }
        try await client.shutdown()
        return rows
    }

    static func plugins(_ alone: String?) -> [any Plugin] {
        var logger = Logger(label: "courier.soak") { _ in NullLogHandler() }
        logger.logLevel = .debug
        let store = InMemoryCredentialStore(Credential(accessToken: "soak-token", refreshToken: "soak-refresh", expiresIn: 3_600))
        let all: [(String, any Plugin)] = [
            ("logging", LoggingPlugin(.init(logger: logger))),
            ("tracing", TracingPlugin()),
            ("metrics", MetricsPlugin()),
            ("auth", AuthPlugin(store: store) { credential in credential }),
            ("retry", RetryPlugin()),
            ("cache", CachePlugin(storage: MemoryResponseCache())),
            ("gzip", GzipPlugin()),
        ]
        guard let alone else { return all.map(\.1) }
        return all.filter { $0.0 == alone }.map(\.1)
    }

    /// `total` calls of `call`, 128 at a time: the errors and the growth of
    /// the peak resident memory per request over the tenths after the first.
    private func soak(total: Int, _ call: @escaping @Sendable (Int) async throws -> Void) async throws -> (errors: Int, slope: Double) {
        let tenth = max(total / 10, 1)
        var errors = 0
        var samples: [Int] = []
        resetPeakResident()
        var next = 0
        var done = 0
        await withTaskGroup(of: Bool.self) { group in
            func submit() {
                let item = next
                next += 1
                group.addTask {
                    do {
                        try await call(item % 100)
                        return true
                    } catch {
                        return false
                    }
                }
            }
            for _ in 0..<min(128, total) { submit() }
            while let succeeded = await group.next() {
                done += 1
                if !succeeded { errors += 1 }
                if done % tenth == 0 { samples.append(peakResidentKilobytes() * 1024) }
                if next < total { submit() }
            }
        }
        log("    peak RSS (MiB) after each tenth: " + samples.map { "\($0 >> 20)" }.joined(separator: ", "))
        return (errors, Self.slope(Array(samples.dropFirst()), step: tenth))
    }

    /// The least-squares slope of `samples` taken `step` requests apart.
    static func slope(_ samples: [Int], step: Int) -> Double {
        let count = Double(samples.count)
        guard count > 1 else { return 0 }
        let xs = samples.indices.map { Double($0 * step) }
        let ys = samples.map(Double.init)
        let meanX = xs.reduce(0, +) / count
        let meanY = ys.reduce(0, +) / count
        let covariance = zip(xs, ys).map { ($0 - meanX) * ($1 - meanY) }.reduce(0, +)
        let variance = xs.map { ($0 - meanX) * ($0 - meanX) }.reduce(0, +)
        return covariance / variance
    }

    /// CPU per request on AsyncHTTPClient, 32 at a time, with the logging
    /// plugin at info and at debug (to a handler that drops every line)
    /// against the same provider without it.
    private func loggingCost(client: HTTPClient) async throws -> [Row] {
        let requests = quick ? 1_000 : 5_000
        let rounds = quick ? 3 : 9
        let transport = AsyncHTTPClientTransport(client: client)
        func provider(_ level: Logger.Level?) -> Provider<SoakTarget> {
            guard let level else { return Provider<SoakTarget>(transport: transport) }
            var logger = Logger(label: "courier.soak") { _ in NullLogHandler() }
            logger.logLevel = level
            return Provider<SoakTarget>(transport: transport, plugins: [LoggingPlugin(.init(logger: logger))])
        }
        let without = provider(nil)
        var rows: [Row] = []
        for level in [Logger.Level.info, .debug] {
            let with = provider(level)
            func cpu(_ provider: Provider<SoakTarget>) async throws -> Double {
                let start = processCPUSeconds()
                _ = try await throughput(total: requests, concurrency: 32) { [baseURL] in
                    _ = try await provider.request(SoakTarget(baseURL: baseURL, item: 1))
                }
                return (processCPUSeconds() - start) / Double(requests) * 1e6
            }
            let result = try await interleaved(rounds: rounds, courier: { try await cpu(with) }, bare: { try await cpu(without) })
            log("  logging at \(level), AsyncHTTPClientTransport: "
                + String(format: "%.1f µs CPU a request against %.1f without the plugin", result.courier, result.bare))
            rows.append(Row(name: "logging at \(level), AsyncHTTPClientTransport: CPU a request (vs no plugin)", unit: "µs",
                            courier: result.courier, bare: result.bare, bareAgain: result.bareAgain, higherIsBetter: false))
        }
        return rows
    }
}
