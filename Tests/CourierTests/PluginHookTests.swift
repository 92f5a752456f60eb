@_spi(Testing) import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The provider skips the hooks a plugin does not write, after learning from
/// the first calls which they are; the hooks a plugin writes run on every
/// call, whatever the plugin is made of.
@Suite struct PluginHookTests {
    /// Counts the calls of each hook it writes.
    final class Counts: Sendable {
        private let counts = Locked<[String: Int]>([:])
        func add(_ hook: String) { counts.withLock { $0[hook, default: 0] += 1 } }
        subscript(_ hook: String) -> Int { counts.withLock { $0[hook, default: 0] } }
    }

    /// Writes no hook.
    struct Silent: Plugin {}

    /// Writes `willSend` and `process`.
    struct Observer: Plugin {
        let counts: Counts
        func willSend(_ request: URLRequest, context: RequestContext) async { counts.add("willSend") }
        func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
            counts.add("process")
            return result
        }
    }

    /// Writes `prepare` and `intercept` by handing them to a plugin that
    /// writes neither: the inner default runs inside its own hook.
    struct Wrapper: Plugin {
        let inner = Silent()
        let counts: Counts
        func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
            counts.add("prepare")
            return try await inner.prepare(request, context: context)
        }
        func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
            counts.add("intercept")
            return try await inner.intercept(request, context: context, next: next)
        }
    }

    /// Writes `didReceive` as a synchronous method, which an async
    /// requirement accepts.
    struct SynchronousObserver: Plugin {
        let counts: Counts
        func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) { counts.add("didReceive") }
    }

    let target = TestTarget(URL(string: "https://api.example.com")!, path: "items", sampleData: Data("[]".utf8))

    @Test func hooksAPluginWritesRunOnEveryCallAndTheOthersAreSkipped() async throws {
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub,
                                            plugins: [Silent(), Observer(counts: counts), Wrapper(counts: counts),
                                                      SynchronousObserver(counts: counts)])
        for _ in 0..<3 {
            #expect(try await provider.request(target).data == Data("[]".utf8))
        }
        for hook in ["willSend", "process", "prepare", "intercept", "didReceive"] {
            #expect(counts[hook] == 3, "\(hook)")
        }
        #expect(provider.skippedPluginHooks == [
            ["prepare", "willSend", "intercept", "didReceive", "process"],
            ["prepare", "intercept", "didReceive"],
            ["willSend", "didReceive", "process"],
            ["prepare", "willSend", "intercept", "process"],
        ])
    }

    @Test func aHookIsOnlyLearntOnceItWasCalled() async throws {
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub, plugins: [Silent(), Observer(counts: counts)])
        // A URL without a host fails before prepare, intercept and willSend.
        let hostless = TestTarget(URL(string: "file:///tmp")!, path: "x")
        await #expect(throws: NetworkError.self) { try await provider.request(hostless) }
        #expect(provider.skippedPluginHooks == [["didReceive", "process"], ["didReceive"]])
        #expect(counts["process"] == 1)

        _ = try await provider.request(target)
        #expect(provider.skippedPluginHooks == [
            ["prepare", "willSend", "intercept", "didReceive", "process"],
            ["prepare", "intercept", "didReceive"],
        ])
        #expect(counts["willSend"] == 1)
        #expect(counts["process"] == 2)
    }

    @Test func callsThatLearnAtTheSameTimeAgree() async throws {
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub, plugins: [Silent(), Observer(counts: counts)])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask { _ = try await provider.request(target) }
            }
            try await group.waitForAll()
        }
        _ = try await provider.request(target)
        #expect(counts["willSend"] == 33)
        #expect(counts["process"] == 33)
        #expect(provider.skippedPluginHooks.last == ["prepare", "intercept", "didReceive"])
    }

    /// An intercept that is skipped must not change what the next plugin's
    /// intercept sees or how often the request is sent.
    @Test func aSkippedInterceptLeavesReplaysToThePluginsThatWriteThem() async throws {
        struct ReplayOnce: Plugin {
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                _ = try await next(request)
                return try await next(request)
            }
        }
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub,
                                            plugins: [Silent(), ReplayOnce(), Silent(), Observer(counts: counts)])
        for _ in 0..<2 {
            _ = try await provider.request(target)
        }
        #expect(counts["willSend"] == 4)
        #expect(provider.skippedPluginHooks[1] == ["prepare", "willSend", "didReceive", "process"])
    }

    /// A plugin whose intercept answers by itself keeps every later hook from
    /// running, so they can never be learnt: learning stops after a bounded
    /// number of calls, and what was not learnt is still called.
    @Test func learningEndsEvenWhenSomeHookIsNeverReached() async throws {
        struct Answers: Plugin {
            let counts: Counts
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                counts.add("intercept")
                return Response(statusCode: 203, data: Data(), request: request)
            }
        }
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub,
                                            plugins: [Answers(counts: counts), Observer(counts: counts)])
        // Read into locals: a failed expectation describes what it mentions,
        // and describing a whole provider is not what these check.
        _ = try await provider.request(target)
        let learnsAfterOneCall = provider.learnsPluginHooks
        #expect(learnsAfterOneCall)
        for _ in 1..<100 {
            let status = try await provider.request(target).statusCode
            #expect(status == 203)
        }
        let learnsAfterAHundredCalls = provider.learnsPluginHooks
        #expect(!learnsAfterAHundredCalls)
        #expect(counts["intercept"] == 100)
        #expect(counts["willSend"] == 0)
        #expect(counts["process"] == 100)
        // Reached and the protocol's own: skipped. Never reached (the
        // observer's intercept, both willSends): not skipped, so still called
        // should a call ever get there.
        let skipped = provider.skippedPluginHooks
        #expect(skipped == [["prepare", "didReceive", "process"], ["prepare", "didReceive"]])
    }
}
