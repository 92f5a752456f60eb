// The code of Plugins/Retry/CourierRetry.docc/CourierRetry.md.

import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierRetry

/// A payment: a POST that the server deduplicates by its idempotency key.
struct Payment: TargetType {
    let baseURL: URL
    let amount: Int
    let idempotencyKey: String
    var path: String { "/payments" }
    var method: HTTPMethod { .post }
    var task: RequestTask { .requestJSONEncodable(["amount": amount]) }
    var headers: [String: String]? { ["Idempotency-Key": idempotencyKey] }
    var validationType: ValidationType { .successCodes }
}

extension Payment: RetryableTarget {
    // Safe: the server deduplicates by the Idempotency-Key header.
    var isRetryable: Bool { true }
}

/// Answers 503 to the first `failures` requests, then `status`.
private func routeFlaky(_ path: String, on server: LoopbackServer, failures: Int, status: Int = 200) {
    let counter = CallCounter()
    server.route(path) { _ in
        counter.next() <= failures ? .text("busy", status: 503) : .text("done", status: status)
    }
}

@Suite struct CourierRetryCatalogSnippets {
    @Test func transientFailuresAreRetried() async throws {
        try await withServer { server in
            routeFlaky("/flaky", on: server, failures: 2)
            let retry = RetryPlugin(.init(maximumAttempts: 4, initialDelay: 0.2, maximumDelay: 5, timeBudget: 300))
            let provider = Provider<API>(plugins: [retry])
            let response = try await provider.request(API(baseURL: server.baseURL, path: "/flaky"))
            #expect(response.bodyText == "done")
            #expect(server.hits("/flaky") == 3)
        }
    }

    @Test func aRetryableTargetsPostIsRetried() async throws {
        try await withServer { server in
            routeFlaky("/payments", on: server, failures: 1, status: 201)
            let provider = Provider<Payment>(plugins: [RetryPlugin(.init(initialDelay: 0.05))])
            let response = try await provider.request(Payment(baseURL: server.baseURL, amount: 10, idempotencyKey: "k1"))
            #expect(response.statusCode == 201)
            #expect(server.hits("/payments") == 2)
            #expect(server.requests(to: "/payments").allSatisfy { $0.header("Idempotency-Key") == "k1" })
        }
    }

    @Test func aPostIsNotRetriedUnlessItsTargetSaysSo() async throws {
        try await withServer { server in
            routeFlaky("/orders", on: server, failures: 1)
            let provider = Provider<API>(plugins: [RetryPlugin(.init(initialDelay: 0.05))])
            let error = try await #require(throws: NetworkError.self) {
                try await provider.request(API(baseURL: server.baseURL, path: "/orders", method: .post))
            }
            #expect(error.response?.statusCode == 503)
            #expect(server.hits("/orders") == 1)
        }
    }
}
