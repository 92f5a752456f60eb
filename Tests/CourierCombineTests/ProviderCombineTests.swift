import Courier
import CourierCombine
import CourierTestSupport
import Foundation
import Testing
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite struct ProviderCombineTests {
    // MARK: - Values and failures

    @Test func requestPublisherEmitsTheResponseThenFinishes() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let recorder = PublisherRecorder(provider.requestPublisher(TestTarget(server.baseURL, path: "/bytes/64")))
            let (values, completion) = await recorder.completion()
            #expect(values.count == 1)
            #expect(values.first?.statusCode == 200)
            #expect(values.first?.data == LoopbackServer.bytes(count: 64))
            guard case .finished = completion else {
                Issue.record("expected .finished, got \(completion)")
                return
            }
        }
    }

    @Test func failedValidationFailsWithNetworkError() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let target = TestTarget(server.baseURL, path: "/status/404", validationType: .successCodes)
            let (values, completion) = await PublisherRecorder(provider.requestPublisher(target)).completion()
            #expect(values.isEmpty)
            guard case .failure(.statusCode(let response)) = completion else {
                Issue.record("expected .statusCode, got \(completion)")
                return
            }
            #expect(response.statusCode == 404)
        }
    }

    @Test func mappedPublisherEmitsTheMappedOutput() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let publisher = provider.requestPublisher(TestTarget(server.baseURL, path: "/bytes/300"), mapper: LengthMapper())
            let (values, completion) = await PublisherRecorder(publisher).completion()
            #expect(values == [300])
            guard case .finished = completion else {
                Issue.record("expected .finished, got \(completion)")
                return
            }
        }
    }

    @Test func mapperFailureIsMappingFailed() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let publisher = provider.requestPublisher(TestTarget(server.baseURL, path: "/bytes/8"), mapper: FailingMapper())
            let (values, completion) = await PublisherRecorder(publisher).completion()
            #expect(values.isEmpty)
            guard case .failure(.mappingFailed(let response, let error)) = completion else {
                Issue.record("expected .mappingFailed, got \(completion)")
                return
            }
            #expect(response.statusCode == 200)
            #expect(error is FailingMapper.Refused)
        }
    }

    // MARK: - Progress

    @Test func progressPublisherEmitsProgressInOrderThenTheResponse() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let size = 256 * 1024
            let target = TestTarget(server.baseURL, path: "/bytes/\(size)")
            let (values, completion) = await PublisherRecorder(provider.requestWithProgressPublisher(target)).completion()
            guard case .finished = completion else {
                Issue.record("expected .finished, got \(completion)")
                return
            }
            let progress = values.compactMap(\.progress).filter { $0.direction == .download }
            #expect(!progress.isEmpty)
            #expect(progress.map(\.completedBytes) == progress.map(\.completedBytes).sorted())
            #expect(progress.last?.completedBytes == Int64(size))
            #expect(values.last?.response?.data.count == size)
            #expect(values.dropLast().allSatisfy { $0.response == nil })
        }
    }

    // MARK: - Subscription

    @Test func nothingIsSentBeforeSubscription() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let publisher = provider.requestPublisher(TestTarget(server.baseURL, path: "/bytes/4"))
            // A later request on the same server proves the first was never sent.
            _ = try await provider.request(TestTarget(server.baseURL, path: "/status/204"))
            #expect(server.hits("/bytes/4") == 0)
            _ = await PublisherRecorder(publisher).completion()
            #expect(server.hits("/bytes/4") == 1)
        }
    }

    @Test func eachSubscriptionSendsItsOwnRequest() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let publisher = provider.requestPublisher(TestTarget(server.baseURL, path: "/bytes/4"))
            _ = await PublisherRecorder(publisher).completion()
            _ = await PublisherRecorder(publisher).completion()
            #expect(server.hits("/bytes/4") == 2)
        }
    }

    @Test func cancellingTheSubscriptionClosesTheConnection() async throws {
        try await withServer { server in
            let gate = Gate()
            server.route("/hold") { _ in
                await gate.wait()
                return .text("late")
            }
            let provider = Provider<TestTarget>()
            let recorder = PublisherRecorder(provider.requestPublisher(TestTarget(server.baseURL, path: "/hold")))
            let request = await server.waitForRequest(to: "/hold")
            recorder.cancel()
            await server.waitForClose(ofConnection: request.connectionID)
            gate.open()
            #expect(recorder.received.isEmpty)
        }
    }
}
