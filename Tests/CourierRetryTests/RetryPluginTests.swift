import Courier
import CourierRetry
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The retry plugin against the loopback server, with an injected clock so
/// no test waits out a back-off.
struct RetryPluginTests {
    static func plugin(_ clock: any RetryClocking, attempts: Int = 5, budget: TimeInterval = 60, random: Double = 0.5) -> RetryPlugin {
        RetryPlugin(.init(maximumAttempts: attempts, initialDelay: 1, multiplier: 2, maximumDelay: 30, timeBudget: budget,
                          clock: clock, random: { random }))
    }

    // MARK: - Attempts and delays

    @Test func retriesA503UntilItSucceedsWithExponentialJitteredDelays() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 3)
            let clock = RecordingClock()
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock, random: 0.5)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            #expect(server.hits("/flaky") == 4)
            #expect(clock.delays == [0.5, 1, 2], "half of 1, 2 and 4 seconds: the random fraction of each bound")
        }
    }

    @Test func theLeadingDotFactoryMakesTheSamePlugin() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 1)
            let clock = RecordingClock()
            let plugins: [any Plugin] = [.retry(.init(clock: clock, random: { 1 }))]
            let response = try await Provider<TestTarget>(plugins: plugins).request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            #expect(server.hits("/flaky") == 2)
            #expect(clock.delays == [0.5])
        }
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func everyTransientStatusIsRetried(status: Int) async throws {
        try await withServer { server in
            server.routeFlaky(failures: 1, status: status)
            let provider = Provider<TestTarget>(plugins: [Self.plugin(RecordingClock())])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            #expect(server.hits("/flaky") == 2)
        }
    }

    @Test func otherStatusesAreNotRetried() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [Self.plugin(RecordingClock())])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/status/501"))
            #expect(response.statusCode == 501)
            #expect(server.hits("/status/501") == 1)
        }
    }

    @Test func stopsAtTheMaximumAttemptsAndTheLastResponseStands() async throws {
        try await withServer { server in
            let clock = RecordingClock()
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock, attempts: 3, random: 1)])
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, path: "/status/503", validationType: .successCodes))
            }
            #expect(error.response?.statusCode == 503)
            #expect(server.hits("/status/503") == 3)
            #expect(clock.delays == [1, 2])
        }
    }

    @Test func theTimeBudgetStopsRetries() async throws {
        try await withServer { server in
            let clock = RecordingClock()
            // Waits of 1, 2, 4…: after 1 + 2 seconds, a wait of 4 would end past 5.
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock, attempts: 10, budget: 5, random: 1)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/status/500"))
            #expect(response.statusCode == 500)
            #expect(clock.delays == [1, 2])
            #expect(server.hits("/status/500") == 3)
        }
    }

    @Test func timeOutsAreRetried() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [Self.plugin(RecordingClock(), attempts: 2)])
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, path: "/delay/3000", timeout: 1))
            }
            guard case .timedOut = error else {
                Issue.record("expected .timedOut, got \(error)")
                return
            }
            await server.waitForRequest(to: "/delay/3000", count: 2)
            #expect(server.hits("/delay/3000") == 2)
        }
    }

    // MARK: - Retry-After

    @Test func retryAfterInSecondsSetsTheWait() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 1, status: 429, headers: [("Retry-After", "7")])
            let clock = RecordingClock()
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            #expect(clock.delays == [7])
        }
    }

    @Test func retryAfterAsAnHTTPDateSetsTheWait() async throws {
        try await withServer { server in
            let clock = RecordingClock(now: Date(timeIntervalSince1970: 1_800_000_000))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = formatter.string(from: clock.now.addingTimeInterval(24))
            server.routeFlaky(failures: 1, status: 503, headers: [("Retry-After", date)])
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            #expect(clock.delays == [24], "Retry-After: \(date)")
        }
    }

    @Test func aRetryAfterBeyondTheBudgetIsNotWaitedFor() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 1, status: 503, headers: [("Retry-After", "3600")])
            let clock = RecordingClock()
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock, budget: 60)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 503)
            #expect(clock.delays.isEmpty)
        }
    }

    @Test(arguments: [
        "Sunday, 06-Nov-94 08:49:57 GMT",  // RFC 850
        "Sun Nov  6 08:49:57 1994",  // asctime, the day padded with a space
    ])
    func retryAfterInTheObsoleteDateFormsSetsTheWait(value: String) async throws {
        try await withServer { server in
            // Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date.
            let clock = RecordingClock(now: Date(timeIntervalSince1970: 784_111_777))
            server.routeFlaky(failures: 1, status: 503, headers: [("Retry-After", value)])
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 200)
            #expect(clock.delays == [20])
        }
    }

    @Test func aHugeRetryAfterWithAnInfiniteBudgetEndsWithTheResponse() async throws {
        try await withServer { server in
            server.routeFlaky(failures: 1, status: 503, headers: [("Retry-After", "99999999999")])
            // The real clock: a wait it cannot express must not trap.
            let provider = Provider<TestTarget>(plugins: [Self.plugin(SystemRetryClock(), budget: .infinity)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 503)
            #expect(server.hits("/flaky") == 1)
        }
    }

    /// Past `Int`, negative or unreadable: the server said "wait", so the
    /// response stands instead of a retry at once.
    @Test(arguments: ["99999999999999999999999", "-5", "soon", "1.5"])
    func aRetryAfterThatCannotBeReadMeansNotNow(value: String) async throws {
        try await withServer { server in
            server.routeFlaky(failures: 1, status: 503, headers: [("Retry-After", value)])
            let clock = RecordingClock()
            let provider = Provider<TestTarget>(plugins: [Self.plugin(clock, budget: .infinity)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/flaky"))
            #expect(response.statusCode == 503)
            #expect(server.hits("/flaky") == 1)
            #expect(clock.delays.isEmpty)
        }
    }

    @Test func theSystemClockWaitsBeyondItsRangeUntilCancelled() async throws {
        let sleep = Task { try await SystemRetryClock().sleep(for: 1e300) }
        sleep.cancel()
        await #expect(throws: CancellationError.self) { try await sleep.value }
    }

    @Test func aLostConnectionIsRetried() async throws {
        try await withServer { server in
            let clock = RecordingClock()
            let provider = Provider<TestTarget>(transport: DropsFirstTransport(), plugins: [Self.plugin(clock)])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/echo"))
            #expect(response.statusCode == 200)
            #expect(server.hits("/echo") == 1)
            #expect(clock.delays.count == 1)
        }
    }
}

/// A transport whose first request loses its connection; later ones go out.
final class DropsFirstTransport: Transport {
    private let inner = URLSessionTransport()
    private let dropped = Mutex(false)

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        let drop = dropped.withLock { dropped in
            defer { dropped = true }
            return !dropped
        }
        if drop {
            throw NetworkError.connectionLost(URLError(.networkConnectionLost))
        }
        return try await inner.send(request)
    }
}
