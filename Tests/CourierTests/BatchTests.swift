import Courier
import CourierTestSupport
import Foundation
import Testing

/// Batches (fail-fast and settled, across providers, bounded) and chains.
@Suite struct BatchTests {
    @Test func aFailureCancelsTheRestAndTheServerSeesIt() async throws {
        try await withServer { server in
            let failNow = Gate()
            let never = Gate()
            server.route("/fails") { _ in
                await failNow.wait()
                return .text("boom", status: 500)
            }
            server.route("/slow/", prefix: true) { _ in
                await never.wait()
                return .text("late")
            }
            let provider = Provider<TestTarget>()
            let targets = [TestTarget(server.baseURL, path: "/fails", validationType: .successCodes)]
                + (1...3).map { TestTarget(server.baseURL, path: "/slow/\($0)") }
            let batch = Task { try await provider.batch(targets, maxConcurrent: 4) }
            try await withDeadline { await server.waitForRequest(to: "/fails") }
            for index in 1...3 {
                try await withDeadline { await server.waitForRequest(to: "/slow/\(index)") }
            }
            failNow.open()
            let error = try #require(await batch.result.failure as? NetworkError)
            #expect(error.response?.statusCode == 500)
            for index in 1...3 {
                let connection = try #require(server.requests(to: "/slow/\(index)").first).connectionID
                try await withDeadline(120, "the server seeing /slow/\(index) cancelled") {
                    await server.waitForClose(ofConnection: connection)
                }
            }
            never.open()
        }
    }

    @Test func settledReturnsEveryResultInOrder() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let paths = ["/status/200", "/status/404", "/status/201", "/status/503", "/echo"]
            let progress = Mutex<[Int]>([])
            let results = await provider.batchSettled(
                paths.map { TestTarget(server.baseURL, path: $0, validationType: .successCodes) },
                maxConcurrent: 2
            ) { finished, total in
                #expect(total == 5)
                progress.withLock { $0.append(finished) }
            }
            #expect(results.map { (try? $0.get())?.statusCode } == [200, nil, 201, nil, 200])
            #expect(results.map { $0.failure?.response?.statusCode } == [nil, 404, nil, 503, nil])
            #expect(progress.withLock { $0 } == [1, 2, 3, 4, 5])
        }
    }

    @Test func aBatchNeverRunsMoreThanMaxConcurrentAtOnce() async throws {
        try await withServer { server in
            let inFlight = Mutex((now: 0, peak: 0))
            server.route("/counted") { _ in
                inFlight.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                try? await Task.sleep(nanoseconds: 5_000_000)
                inFlight.withLock { $0.now -= 1 }
                return .text("ok")
            }
            let provider = Provider<TestTarget>()
            let responses = try await provider.batch(Array(repeating: TestTarget(server.baseURL, path: "/counted"), count: 24), maxConcurrent: 3)
            #expect(responses.count == 24)
            #expect(inFlight.withLock { $0.peak } <= 3)
            #expect(server.hits("/counted") == 24)
        }
    }

    @Test func aBatchCanSpanProviders() async throws {
        struct Other: TargetType {
            let baseURL: URL
            var path: String { "/status/202" }
            var method: HTTPMethod { .get }
            var task: RequestTask { .requestPlain }
            var headers: [String: String]? { nil }
        }
        try await withServer { server in
            let first = Provider<TestTarget>()
            let second = Provider<Other>()
            let responses = try await Batch.all([
                first.operation(TestTarget(server.baseURL, path: "/status/200")),
                second.operation(Other(baseURL: server.baseURL)),
            ])
            #expect(responses.map(\.statusCode) == [200, 202])
        }
    }

    @Test func aChainFollowsUntilNilAndReturnsEveryResponse() async throws {
        try await withServer { server in
            server.route("/page/", prefix: true) { request in
                let page = Int(request.path.split(separator: "/").last ?? "") ?? 0
                return .text(page < 3 ? "\(page + 1)" : "end")
            }
            let provider = Provider<TestTarget>()
            let responses = try await provider.chain(TestTarget(server.baseURL, path: "/page/1")) { response in
                let text = String(decoding: response.data, as: UTF8.self)
                return Int(text).map { TestTarget(server.baseURL, path: "/page/\($0)") }
            }
            #expect(responses.map { String(decoding: $0.data, as: UTF8.self) } == ["2", "3", "end"])
        }
    }

    @Test func aChainStopsAtTheFirstFailure() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let steps = ["/status/200", "/status/500", "/status/201"]
            let error = await #expect(throws: NetworkError.self) {
                _ = try await provider.chain(TestTarget(server.baseURL, path: steps[0], validationType: .successCodes)) { response in
                    let index = steps.firstIndex(of: response.request?.url?.path ?? "") ?? steps.count
                    return index + 1 < steps.count ? TestTarget(server.baseURL, path: steps[index + 1], validationType: .successCodes) : nil
                }
            }
            #expect(error?.response?.statusCode == 500)
            #expect(server.hits("/status/201") == 0)
        }
    }
}
