import Courier
import CourierRetry
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What the retry plugin must never send twice, and cancellation.
struct RetryPluginSafetyTests {
    /// A POST whose target declares it safe to repeat.
    struct IdempotentPost: RetryableTarget {
        var baseURL: URL
        var path = "/status/503"
        var method: HTTPMethod = .post
        var task: RequestTask = .requestData(Data("payload".utf8))
        var headers: [String: String]? = nil
    }

    /// Replaces the body with a one-shot stream, which cannot be sent twice.
    struct StreamingBodyPlugin: Plugin {
        func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
            var request = request
            request.httpBody = nil
            request.httpBodyStream = InputStream(data: Data("streamed".utf8))
            return request
        }
    }

    @Test func aPostIsNotRetried() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [RetryPluginTests.plugin(RecordingClock())])
            let target = TestTarget(server.baseURL, path: "/status/503", method: .post, task: .requestData(Data("x".utf8)))
            let response = try await provider.request(target)
            #expect(response.statusCode == 503)
            #expect(server.hits("/status/503") == 1)
        }
    }

    @Test func aPostIsRetriedWhenItsTargetOptsIn() async throws {
        try await withServer { server in
            let provider = Provider<IdempotentPost>(plugins: [RetryPluginTests.plugin(RecordingClock(), attempts: 3)])
            _ = try await provider.request(IdempotentPost(baseURL: server.baseURL))
            #expect(server.hits("/status/503") == 3)
            #expect(server.requests(to: "/status/503").allSatisfy { $0.bodyText == "payload" }, "each replay carries the body")
        }
    }

    @Test func aPostIsRetriedWhenTheCallOptsInAndAGetNotWhenItOptsOut() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [RetryPluginTests.plugin(RecordingClock(), attempts: 2)])
            let post = TestTarget(server.baseURL, path: "/status/502", method: .post)
            _ = try await provider.request(post, options: RequestOptions().setting(RetryPlugin.AllowsRetry.self, to: true))
            #expect(server.hits("/status/502") == 2)

            let get = TestTarget(server.baseURL, path: "/status/504")
            _ = try await provider.request(get, options: RequestOptions().setting(RetryPlugin.AllowsRetry.self, to: false))
            #expect(server.hits("/status/504") == 1)
        }
    }

    @Test func aBodyThatCannotBeReplayedIsNotRetried() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [StreamingBodyPlugin(), RetryPluginTests.plugin(RecordingClock())])
            let response = try await provider.request(TestTarget(server.baseURL, path: "/status/503", method: .put))
            #expect(response.statusCode == 503)
            #expect(server.hits("/status/503") == 1)
            #expect(server.requests(to: "/status/503").first?.bodyText == "streamed")
        }
    }

    @Test func cancellingDuringTheBackOffEndsAtOnceWithCancelled() async throws {
        try await withServer { server in
            let clock = SuspendingClock()
            let provider = Provider<TestTarget>(plugins: [RetryPluginTests.plugin(clock)])
            let task = Task {
                try await provider.request(TestTarget(server.baseURL, path: "/status/503"))
            }
            var sleeps = clock.sleeps.makeAsyncIterator()
            let delay = await sleeps.next()
            #expect(delay == 0.5)
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result, let error = error as? NetworkError else {
                Issue.record("expected a NetworkError, got \(result)")
                return
            }
            #expect(error.isCancelled)
            #expect(server.hits("/status/503") == 1, "no transmission after the cancel")
        }
    }

    @Test func cancellingWithARetryableResponseInHandEndsWithCancelled() async throws {
        try await withServer { server in
            let seen = Mutex<String?>(nil)
            let plugins: [any Plugin] = [OutcomeRecorder(outcome: seen), RetryPluginTests.plugin(RecordingClock()), CancelOnResponse()]
            let provider = Provider<TestTarget>(plugins: plugins)
            let task = Task { try await provider.request(TestTarget(server.baseURL, path: "/status/503")) }
            _ = await task.result
            #expect(seen.withLock { $0 } == "cancelled", "what the retry plugin ended with")
            #expect(server.hits("/status/503") == 1)
        }
    }
}

/// Cancels the calling task as soon as a response arrives, so the retry
/// plugin holds a retryable response in a cancelled task.
struct CancelOnResponse: Plugin {
    func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let response = try await next(request)
        withUnsafeCurrentTask { $0?.cancel() }
        return response
    }
}

/// Records what the plugins after it returned or threw.
struct OutcomeRecorder: Plugin {
    let outcome: Mutex<String?>

    func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        do {
            let response = try await next(request)
            outcome.withLock { $0 = "status \(response.statusCode)" }
            return response
        } catch {
            outcome.withLock { $0 = error.isCancelled ? "cancelled" : "\(error)" }
            throw error
        }
    }
}
