@_spi(Testing) import Courier
import CourierTestSupport
import Foundation
import Testing

/// Identical in-flight GETs share one transfer; anything that differs never
/// merges.
@Suite struct CoalescingTests {
    /// Starts `targets` at once against a held route, waits until `joined` calls
    /// wait on shared transfers and `arrived` requests reached the server, then
    /// releases the route and returns the responses.
    private func run(
        _ targets: [TestTarget],
        on provider: Provider<TestTarget>,
        server: LoopbackServer,
        gate: Gate,
        joined: Int,
        arrived: Int
    ) async throws -> [Response] {
        try await withThrowingTaskGroup(of: Response.self) { group in
            for target in targets {
                group.addTask { try await provider.request(target) }
            }
            try await withDeadline { await server.waitForRequest(to: "/held", count: arrived) }
            try await waitUntil("\(joined) callers joined") { provider.coalescedWaiterCount == joined }
            gate.open()
            var responses: [Response] = []
            for try await response in group { responses.append(response) }
            return responses
        }
    }

    private func heldServer(_ server: LoopbackServer) -> Gate {
        let gate = Gate()
        server.route("/held") { request in
            await gate.wait()
            return .json(request.echoJSON())
        }
        return gate
    }

    @Test func identicalGETsShareOneTransfer() async throws {
        try await withServer { server in
            let gate = heldServer(server)
            let provider = Provider<TestTarget>(coalescesRequests: true)
            let target = TestTarget(server.baseURL, path: "/held", headers: ["Accept": "application/json"])
            let responses = try await run(Array(repeating: target, count: 10), on: provider, server: server, gate: gate, joined: 10, arrived: 1)
            #expect(responses.count == 10)
            #expect(responses.allSatisfy { $0.statusCode == 200 })
            #expect(server.hits("/held") == 1)
        }
    }

    @Test func requestsThatDifferNeverMerge() async throws {
        try await withServer { server in
            let gate = heldServer(server)
            let provider = Provider<TestTarget>(coalescesRequests: true)
            let base = TestTarget(server.baseURL, path: "/held")
            let differentQuery = base.with { $0.task = .requestParameters(parameters: ["page": 2], encoding: URLEncoding.queryString) }
            let differentHeader = base.with { $0.headers = ["Accept-Language": "fr"] }
            let differentMethod = base.with { $0.method = .post }
            let targets = [base, base, differentQuery, differentHeader, differentMethod, differentMethod]
            // base ×2 share one transfer and the query and header variants wait
            // on their own (4 callers in the registry); POSTs never enter it.
            let responses = try await run(targets, on: provider, server: server, gate: gate, joined: 4, arrived: 5)
            #expect(responses.count == 6)
            #expect(server.hits("/held") == 5)
        }
    }

    /// A caller with a long time-out never inherits a short one's failure.
    @Test func requestsWithDifferentTimeOutsOrLimitsNeverMerge() async throws {
        try await withServer { server in
            let gate = heldServer(server)
            let provider = Provider<TestTarget>(coalescesRequests: true)
            // Time-outs far past how long a loaded machine may take to start
            // all five: one that ran out would end its transfer early.
            let base = TestTarget(server.baseURL, path: "/held", timeout: 300)
            let targets = [base, base, base.with { $0.timeout = 400 }, base.with { $0.deadline = 500 },
                           base.with { $0.maximumResponseSize = 1 << 20 }]
            let responses = try await run(targets, on: provider, server: server, gate: gate, joined: 5, arrived: 4)
            #expect(responses.count == 5)
            #expect(server.hits("/held") == 4)
        }
    }

    @Test func coalescingIsOffByDefault() async throws {
        try await withServer { server in
            let gate = heldServer(server)
            let provider = Provider<TestTarget>()
            let target = TestTarget(server.baseURL, path: "/held")
            _ = try await run(Array(repeating: target, count: 4), on: provider, server: server, gate: gate, joined: 0, arrived: 4)
            #expect(server.hits("/held") == 4)
        }
    }

    @Test func aCancelledWaiterLeavesTheOthersTheirResponse() async throws {
        try await withServer { server in
            let gate = heldServer(server)
            let provider = Provider<TestTarget>(coalescesRequests: true)
            let target = TestTarget(server.baseURL, path: "/held")
            let first = Task { try await provider.request(target) }
            let second = Task { try await provider.request(target) }
            try await withDeadline { await server.waitForRequest(to: "/held") }
            try await waitUntil("both callers joined") { provider.coalescedWaiterCount == 2 }
            first.cancel()
            #expect((await first.result.failure as? NetworkError)?.isCancelled == true)
            gate.open()
            #expect(try await second.value.statusCode == 200)
            #expect(server.hits("/held") == 1)
        }
    }
}
