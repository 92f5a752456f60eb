// The code of Plugins/Adapters/Combine/CourierCombine.docc/CourierCombine.md.
// Needs the test target to depend on CourierCombine.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierCombine

func loadGreeting(_ provider: Provider<API>, _ target: API, show: @escaping @Sendable (String) -> Void) -> AnyCancellable {
    provider.requestPublisher(target)
        .filterSuccessfulStatusCodes()
        .mapString()
        .sink(receiveCompletion: { _ in }, receiveValue: show)
}

@Suite struct CourierCombineCatalogSnippets {
    @Test func aPublisherEmitsTheMappedResponse() async throws {
        let provider = Provider<API>(
            endpointClosure: { target in
                Provider.defaultEndpointMapping(for: target).replacing(sampleResponse: .networkResponse(200, Data("hello".utf8)))
            },
            stubClosure: Provider.immediatelyStub
        )
        let greeting = Box<String>()
        let cancellable = loadGreeting(provider, API(baseURL: URL(string: "https://api.example.com")!)) { greeting.set($0) }
        try await waitUntil("the greeting arrives", within: 30) { greeting.value != nil }
        #expect(greeting.value == "hello")
        cancellable.cancel()
    }
}
