import Courier
import CourierTestSupport
import Foundation
import Testing

/// The completion-handler API as Moya's provider spec uses it: the call shape,
/// synchronous immediate stubs, callback queues, cancellation and the
/// plugins' hooks.
@Suite struct CompletionTests {
    private static let zen = "Half measures are as bad as nothing at all."

    @Test func anImmediateStubAnswersBeforeRequestReturns() {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        let message = Mutex<String?>(nil)
        provider.request(.zen) { result in
            if case .success(let response) = result {
                message.withLock { $0 = String(decoding: response.data, as: UTF8.self) }
            }
        }
        #expect(message.withLock { $0 } == Self.zen)
    }

    @Test func theTrailingClosureIsTheCompletionInAsyncCodeToo() async throws {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub)
        // The same call shape as in synchronous code: the closure is the
        // completion, not a progress handler.
        let outcome = await result { completion in
            provider.request(.userProfile("ashfurrow")) { result in completion(result) }
        }
        #expect(try outcome.get().data == GitHub.userProfile("ashfurrow").sampleData)
        let called = Mutex(false)
        provider.request(.zen) { _ in called.withLock { $0 = true } }
        #expect(called.withLock { $0 })
    }

    @Test func aProviderWideCallbackQueueDeliversCompletions() async {
        let provider = Provider<GitHub>(stubClosure: Provider.delayedStub(0.01), callbackQueue: NamedQueue("callback").queue)
        let onQueue = await withCheckedContinuation { continuation in
            provider.request(.zen) { _ in continuation.resume(returning: NamedQueue.current) }
        }
        #expect(onQueue == "callback")
    }

    @Test func aCallsOwnQueueWinsOverTheProviders() async {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub, callbackQueue: NamedQueue("provider").queue)
        let onQueue = await withCheckedContinuation { continuation in
            provider.request(.zen, callbackQueue: NamedQueue("call").queue) { _ in continuation.resume(returning: NamedQueue.current) }
        }
        #expect(onQueue == "call")
    }

    @Test func progressGoesToTheCallbackQueueToo() async throws {
        let queue = NamedQueue("progress").queue
        try await withServer { server in
            let provider = Provider<HTTPBin>(endpointClosure: rebased(onto: server), callbackQueue: queue)
            let everyReportOnQueue = Mutex<[Bool]>([])
            let outcome = await result { completion in
                provider.request(.uploadMultipartBodyParts([MultipartFormBodyPart(provider: .data(Data(count: 100_000)), name: "data")], nil),
                                 progress: { _ in everyReportOnQueue.withLock { $0.append(NamedQueue.current == "progress") } },
                                 completion: completion)
            }
            let status = try outcome.get().statusCode
            #expect(status == 404) // no /post route: the upload still went out
            // Progress is delivered asynchronously on the queue; the completion
            // was queued after every report, so all have run.
            let reports = queue.sync { everyReportOnQueue.withLock { $0 } }
            #expect(!reports.isEmpty)
            #expect(reports.allSatisfy { $0 })
        }
    }

    @Test func cancellingADelayedStubEndsWithCancelledAndTellsThePlugins() async {
        let plugin = TestingPlugin()
        let provider = Provider<GitHub>(stubClosure: Provider.delayedStub(30), plugins: [plugin])
        let outcome = await result { completion in
            let cancellable = provider.request(.zen, completion: completion)
            cancellable.cancel()
            #expect(cancellable.isCancelled)
        }
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.isCancelled)
        #expect(plugin.didReceiveCount == 1)
        if case .failure(let seen)? = plugin.result { #expect(seen.isCancelled) } else { Issue.record("didReceive saw no failure") }
    }

    @Test func aCallCancelledBeforeItStartsStillRunsDidReceiveOnce() async {
        let plugin = TestingPlugin()
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub, plugins: [plugin])
        let error = await Task { () async -> NetworkError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(NetworkError) {
                _ = try await provider.request(.zen)
                return nil
            } catch {
                return error
            }
        }.value
        #expect(error?.isCancelled == true)
        #expect(plugin.didReceiveCount == 1)
        #expect(plugin.request == nil) // nothing was sent
    }

    @Test func pluginsSeePrepareBeforeWillSendAndProcessRewritesTheResult() {
        let plugin = TestingPlugin()
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub, plugins: [plugin])
        let status = Mutex<Int?>(nil)
        provider.request(.zen) { result in
            // Courier validates after `process` (a deliberate difference from
            // Moya, where validation comes first): the processed -1 fails
            // GitHub's validation and arrives as the error's response.
            let response = switch result {
            case .success(let response): response
            case .failure(let error): error.response
            }
            status.withLock { $0 = response?.statusCode }
        }
        #expect(plugin.didPrepare)
        #expect(status.withLock { $0 } == -1)
        if case .success(let seen)? = plugin.result { #expect(seen.statusCode == 200) } else { Issue.record("didReceive saw no response") }
    }
}
