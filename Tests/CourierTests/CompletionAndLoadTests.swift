import Courier
import CourierTestSupport
import Foundation
import Testing

/// The completion-handler form, and many requests at once.
@Suite struct CompletionAndLoadTests {
    @Test func theCompletionFormDeliversTheResultOnTheQueue() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let queue = DispatchQueue(label: "courier.tests.callbacks")
            let key = DispatchSpecificKey<Bool>()
            queue.setSpecific(key: key, value: true)
            let (statusCode, onQueue) = await withCheckedContinuation { continuation in
                provider.request(TestTarget(server.baseURL, path: "/status/201"), callbackQueue: queue) { result in
                    continuation.resume(returning: ((try? result.get())?.statusCode, DispatchQueue.getSpecific(key: key) == true))
                }
            }
            #expect(statusCode == 201)
            #expect(onQueue)
        }
    }

    @Test func cancellingTheHandleCancelsTheRequest() async throws {
        try await withServer { server in
            let gate = Gate()
            server.route("/hold") { _ in
                await gate.wait()
                return .text("late")
            }
            let provider = Provider<TestTarget>()
            let result = Mutex<Result<Response, NetworkError>?>(nil)
            let done = Gate()
            let handle = provider.request(TestTarget(server.baseURL, path: "/hold")) { outcome in
                result.withLock { $0 = outcome }
                done.open()
            }
            let received = try await withDeadline { await server.waitForRequest(to: "/hold") }
            handle.cancel()
            #expect(handle.isCancelled)
            try await withDeadline { await done.wait() }
            #expect(result.withLock { $0 }?.failure?.isCancelled == true)
            try await withDeadline { await server.waitForClose(ofConnection: received.connectionID) }
            gate.open()
        }
    }

    @Test func aThousandRequestsAtSixtyFourConcurrentAllSucceed() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(plugins: [RecordingPlugin("r", log: HookLog())])
            let targets = (0..<1000).map { index in
                TestTarget(server.baseURL, path: "/echo",
                           task: .requestParameters(parameters: ["i": index], encoding: URLEncoding.queryString),
                           validationType: .successCodes)
            }
            let responses = try await provider.batch(targets, maxConcurrent: 64)
            #expect(responses.count == 1000)
            let indices = try responses.map { try Echo($0).query }
            #expect(indices == (0..<1000).map { "i=\($0)" })
            #expect(server.hits("/echo") == 1000)
        }
    }
}
