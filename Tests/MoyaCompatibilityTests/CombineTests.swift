@_spi(Testing) import Courier
import CourierCombine
import CourierTestSupport
import Foundation
import Testing

// Only `import CourierCombine`: `sink`, `AnyCancellable` and `Just` come with it
// (Combine on Apple platforms, OpenCombine elsewhere).

/// Moya's Combine spec: publishers of responses, their operators, errors,
/// in-flight sharing, progress and callback queues.
@Suite struct CombineTests {
    /// Subscribes to `publisher` and waits for it to finish.
    private static func outcome<Output>(
        of publisher: AnyPublisher<Output, NetworkError>,
        onEachValue: @escaping @Sendable (Output) -> Void = { _ in }
    ) async -> (values: [Output], failure: NetworkError?) {
        let values = Mutex<[Output]>([])
        let subscription = Mutex<AnyCancellable?>(nil)
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<NetworkError?, Never>) in
            let cancellable = publisher.sink(
                receiveCompletion: { completion in
                    switch completion {
                    case .finished: continuation.resume(returning: nil)
                    case .failure(let error): continuation.resume(returning: error)
                    }
                },
                receiveValue: { value in
                    onEachValue(value)
                    values.withLock { $0.append(value) }
                }
            )
            subscription.withLock { $0 = cancellable }
        }
        subscription.withLock { $0 = nil }
        return (values.withLock { $0 }, failure)
    }

    private static let stubbed = Provider<GitHub>(stubClosure: Provider.immediatelyStub)

    @Test func aPublisherEmitsOneResponseWithTheStubbedData() async {
        let (values, failure) = await Self.outcome(of: Self.stubbed.requestPublisher(.zen))
        #expect(values.count == 1)
        #expect(values.first?.data == GitHub.zen.sampleData)
        #expect(failure == nil)
    }

    @Test func mapJSONOnAPublisherMapsTheProfile() async {
        let (values, failure) = await Self.outcome(of: Self.stubbed.requestPublisher(.userProfile("ashfurrow")).mapJSON())
        let profile = values.first as? [String: Any]
        #expect(profile?["login"] as? String == "ashfurrow")
        #expect(failure == nil)
    }

    @Test func mapAndMapStringOnAPublisher() async {
        struct Profile: Decodable, Sendable { let login: String; let id: Int }
        let (profiles, _) = await Self.outcome(of: Self.stubbed.requestPublisher(.userProfile("ashfurrow")).map(Profile.self))
        #expect(profiles.first?.login == "ashfurrow")
        #expect(profiles.first?.id == 100)
        let (texts, _) = await Self.outcome(of: Self.stubbed.requestPublisher(.zen).mapString())
        #expect(texts == ["Half measures are as bad as nothing at all."])
        let (logins, _) = await Self.outcome(of: Self.stubbed.requestPublisher(.userProfile("ashfurrow")).mapString(atKeyPath: "login"))
        #expect(logins == ["ashfurrow"])
    }

    @Test func filtersOnAPublisherEndTheStreamWithTheStatus() async {
        let provider = Provider<GitHub>(endpointClosure: { target in
            Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .networkResponse(304, Data()))
        }, stubClosure: Provider.immediatelyStub)
        let (values, failure) = await Self.outcome(of: provider.requestPublisher(.zen).filterSuccessfulStatusCodes())
        #expect(values.isEmpty)
        #expect(failure?.response?.statusCode == 304)
        let (redirects, none) = await Self.outcome(of: provider.requestPublisher(.zen).filterSuccessfulStatusAndRedirectCodes())
        #expect(redirects.count == 1)
        #expect(none == nil)
    }

    @Test func aFailingStubEmitsItsErrorAndNoValue() async {
        let provider = Provider<GitHub>(endpointClosure: failureEndpointClosure, stubClosure: Provider.immediatelyStub)
        let (values, failure) = await Self.outcome(of: provider.requestPublisher(.zen))
        #expect(values.isEmpty)
        #expect(failure?.underlyingError?.localizedDescription == "Houston, we have a problem")
    }

    @Test func identicalPublishersInFlightShareOneRequest() async throws {
        try await withServer { server in
            let gate = heldZen(on: server)
            let provider = Provider<GitHub>(endpointClosure: rebased(onto: server), coalescesRequests: true)
            let first = provider.requestPublisher(.zen)
            let second = provider.requestPublisher(.zen)
            #expect(server.hits("/zen") == 0) // publishers are lazy
            async let one = Self.outcome(of: first)
            async let other = Self.outcome(of: second)
            try await withDeadline { await server.waitForRequest(to: "/zen") }
            try await waitUntil("both subscribers joined") { provider.coalescedWaiterCount == 2 }
            gate.open()
            let (ones, others) = await (one, other)
            #expect(ones.values.first?.data == others.values.first?.data)
            #expect(server.hits("/zen") == 1)
        }
    }

    @Test func theProgressPublisherReportsThenEndsWithTheResponse() async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>()
            let (events, failure) = await Self.outcome(of: provider.requestWithProgressPublisher(TestTarget(server.baseURL, path: "/bytes/4000")))
            #expect(failure == nil)
            #expect(events.compactMap(\.response).count == 1)
            #expect(events.last?.response?.data.count == 4000)
            let fractions = events.compactMap { $0.progress?.fractionCompleted }
            #expect(fractions == fractions.sorted())
            #expect(fractions.last == 1.0)
        }
    }

    @Test func valuesArriveOnTheCallsQueueElseTheProviders() async {
        let provider = Provider<GitHub>(stubClosure: Provider.immediatelyStub, callbackQueue: NamedQueue("provider").queue)
        let onCall = Mutex<String?>(nil)
        _ = await Self.outcome(of: provider.requestPublisher(.zen, callbackQueue: NamedQueue("call").queue)) { _ in
            onCall.withLock { $0 = NamedQueue.current }
        }
        #expect(onCall.withLock { $0 } == "call")
        let onProvider = Mutex<String?>(nil)
        _ = await Self.outcome(of: provider.requestPublisher(.zen)) { _ in
            onProvider.withLock { $0 = NamedQueue.current }
        }
        #expect(onProvider.withLock { $0 } == "provider")
    }
}
