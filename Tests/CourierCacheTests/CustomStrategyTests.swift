import Courier
import CourierCache
import CourierTestSupport
import Foundation
import Testing

/// Every path of ``CacheStrategy/custom(_:)``: each response reaches the
/// caller exactly once, and each question is asked exactly once.
@Suite struct CustomStrategyTests {
    /// Counts the decision's questions and answers them as told.
    final class Recorder: Sendable {
        let send: Bool
        let update: Bool
        private let questions = Mutex<[String]>([])

        init(send: Bool, update: Bool) {
            self.send = send
            self.update = update
        }

        var asked: [String] { questions.withLock { $0 } }

        var decision: CacheDecision {
            CacheDecision(
                shouldSendRequest: { _, cached in
                    self.questions.withLock { $0.append("send?(\(cached?.text ?? "nil"))") }
                    return self.send
                },
                shouldUpdateCache: { _, response, cached in
                    self.questions.withLock { $0.append("update?(\(response.text), \(cached?.text ?? "nil"))") }
                    return self.update
                }
            )
        }
    }

    private func collect(_ stream: AsyncThrowingStream<Response, any Error>) async -> [String] {
        var seen: [String] = []
        do {
            for try await response in stream { seen.append(response.text) }
        } catch {
            seen.append(CachePlugin.Failure.isNotCached(error) ? "notCached" : "error")
        }
        return seen
    }

    @Test(arguments: [
        // (cached first?, send, update) -> (responses, questions, stored afterwards)
        (true, true, true, ["response 1", "response 2"], ["send?(response 1)", "update?(response 2, response 1)"], "response 2"),
        (true, true, false, ["response 1", "response 2"], ["send?(response 1)", "update?(response 2, response 1)"], "response 1"),
        (true, false, true, ["response 1"], ["send?(response 1)"], "response 1"),
        (false, true, true, ["response 1"], ["send?(nil)", "update?(response 1, nil)"], "response 1"),
        (false, true, false, ["response 1"], ["send?(nil)", "update?(response 1, nil)"], "notCached"),
        (false, false, true, ["notCached"], ["send?(nil)"], "notCached"),
    ])
    func everyPathCallsBackOncePerResponse(
        cachedFirst: Bool, send: Bool, update: Bool, expected: [String], questions: [String], stored: String
    ) async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed")
            if cachedFirst { _ = try await provider.request(target) }
            let recorder = Recorder(send: send, update: update)

            let seen = await collect(provider.responses(for: target, cachePolicy: .custom(recorder.decision)))

            #expect(seen == expected)
            #expect(recorder.asked == questions)
            #expect(server.hits("/feed") == (cachedFirst ? 1 : 0) + (send ? 1 : 0))
            let afterwards = await collect(provider.responses(for: target, cachePolicy: .cache))
            #expect(afterwards == [stored])
        }
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aSingleCallAsksOnceAndAnswersOnce(cachedFirst: Bool, send: Bool) async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<CachedTarget>(plugins: [CachePlugin()])
            let target = CachedTarget(server, path: "/feed")
            if cachedFirst { _ = try await provider.request(target) }
            let recorder = Recorder(send: send, update: true)

            let result: Result<Response, NetworkError>
            do throws(NetworkError) {
                result = .success(try await provider.request(target, cachePolicy: .custom(recorder.decision)))
            } catch {
                result = .failure(error)
            }
            switch (cachedFirst, send) {
            case (true, false):
                #expect(try result.get().text == "response 1")
                #expect(try result.get().cacheStatus == .hit)
            case (false, false):
                #expect(throws: NetworkError.self) { try result.get() }
            default:
                #expect(try result.get().text == (cachedFirst ? "response 2" : "response 1"))
            }
            #expect(recorder.asked.count == (send ? 2 : 1))
        }
    }

    struct DecidingTarget: CacheableTarget, CacheDecidingTarget {
        let base: CachedTarget
        var baseURL: URL { base.baseURL }
        var path: String { base.path }
        var method: HTTPMethod { base.method }
        var task: RequestTask { base.task }
        var headers: [String: String]? { base.headers }
        var cacheStrategy: CacheStrategy? { .custom(.askingTarget) }

        func shouldSendRequest(cached: Response?) -> Bool { cached == nil }
        func shouldUpdateCache(with response: Response, cached: Response?) -> Bool { true }
    }

    @Test func aTargetCanAnswerTheQuestionsItself() async throws {
        try await withServer { server in
            installCounter(on: server, path: "/feed")
            let provider = Provider<DecidingTarget>(plugins: [CachePlugin()])
            let target = DecidingTarget(base: CachedTarget(server, path: "/feed"))
            let first = try await provider.request(target)
            let second = try await provider.request(target)
            #expect([first.text, second.text] == ["response 1", "response 1"])
            #expect(second.cacheStatus == .hit)
            #expect(server.hits("/feed") == 1)
        }
    }
}
