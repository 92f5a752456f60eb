@_spi(Testing) import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The hooks a plugin writes run on every call, whatever the plugin is made
/// of (a hook written synchronously, one that hands over to a default); the
/// ones it does not write are the protocol's defaults, which change nothing.
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

    @Test func hooksAPluginWritesRunOnEveryCallAndTheDefaultsChangeNothing() async throws {
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
    }

    /// After a plugin's first call, the provider no longer calls the hooks it
    /// leaves to their default; a plugin that hands a hook to another
    /// plugin's default still has its own hook called.
    @Test func theProviderStopsCallingTheHooksAPluginLeavesToTheirDefault() async throws {
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub,
                                            plugins: [Silent(), Observer(counts: counts), Wrapper(counts: counts),
                                                      SynchronousObserver(counts: counts)])
        #expect(provider.skippedHooks == [[], [], [], []])
        _ = try await provider.request(target)
        let all = ["prepare", "willSend", "intercept", "didReceive", "process"]
        #expect(provider.skippedHooks == [
            all,
            ["prepare", "intercept", "didReceive"],
            ["willSend", "didReceive", "process"],
            ["prepare", "willSend", "intercept", "process"],
        ])
        _ = try await provider.request(target)
        #expect(counts["prepare"] == 2)
        #expect(counts["intercept"] == 2)
    }

    @Test func aCallThatFailsBeforeSendingStillRunsDidReceiveAndProcess() async throws {
        let counts = Counts()
        let provider = Provider<TestTarget>(stubClosure: Provider.immediatelyStub, plugins: [Silent(), Observer(counts: counts)])
        // A URL without a host fails before prepare, intercept and willSend.
        let hostless = TestTarget(URL(string: "file:///tmp")!, path: "x")
        await #expect(throws: NetworkError.self) { try await provider.request(hostless) }
        #expect(counts["process"] == 1)
        #expect(counts["willSend"] == 0)
    }

    /// A default intercept between two plugins passes the request on: the
    /// replays of the plugin before it reach the transport, and `willSend`
    /// runs once per transmission.
    @Test func aDefaultInterceptLeavesReplaysToThePluginsThatWriteThem() async throws {
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
        #expect(counts["process"] == 2)
    }

    /// A plugin whose intercept answers by itself keeps the later plugins'
    /// intercepts and every willSend from running; didReceive and process
    /// still run for every plugin.
    @Test func anInterceptThatAnswersByItselfSendsNothing() async throws {
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
        for _ in 0..<3 {
            let status = try await provider.request(target).statusCode
            #expect(status == 203)
        }
        #expect(counts["intercept"] == 3)
        #expect(counts["willSend"] == 0)
        #expect(counts["process"] == 3)
    }

    /// `sentRequest` is the request of the latest transmission: nil in
    /// `prepare` and for a call that is never sent, the replay's request in
    /// `didReceive` after a replay that changed it.
    @Test func theContextKeepsTheRequestOfTheLatestTransmission() async throws {
        final class Seen: Sendable {
            let urls = Locked<[String]>([])
            func add(_ hook: String, _ request: URLRequest?) {
                urls.withLock { $0.append("\(hook) \(request?.url?.absoluteString ?? "nil")") }
            }
        }
        struct Recorder: Plugin {
            let seen: Seen
            func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
                seen.add("prepare", context.sentRequest)
                return request
            }
            func willSend(_ request: URLRequest, context: RequestContext) async {
                seen.add("willSend", context.sentRequest)
            }
            func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
                seen.add("didReceive", context.sentRequest)
            }
        }
        /// Sends the request, then again with `?again`.
        struct ReplayChanged: Plugin {
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                _ = try await next(request)
                var again = request
                again.url = request.url.map { URL(string: $0.absoluteString + "?again") ?? $0 }
                return try await next(again)
            }
        }
        struct Answers: Plugin {
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                Response(statusCode: 200, data: Data(), request: request)
            }
        }
        let sent = Seen()
        _ = try await Provider<TestTarget>(stubClosure: Provider.immediatelyStub, plugins: [Recorder(seen: sent), ReplayChanged()])
            .request(target)
        #expect(sent.urls.current == [
            "prepare nil",
            "willSend https://api.example.com/items",
            "willSend https://api.example.com/items?again",
            "didReceive https://api.example.com/items?again",
        ])
        let answered = Seen()
        _ = try await Provider<TestTarget>(stubClosure: Provider.immediatelyStub, plugins: [Recorder(seen: answered), Answers()])
            .request(target)
        #expect(answered.urls.current == ["prepare nil", "didReceive nil"])
    }
}
