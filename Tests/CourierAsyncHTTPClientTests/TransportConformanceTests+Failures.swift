import Courier
import CourierTestSupport
import Foundation
import Testing

/// Failures: every transport gives the same `NetworkError` case.
extension TransportConformanceTests {
    @Test(arguments: TransportKind.networked)
    func aClosedPortIsServerUnreachable(kind: TransportKind) async throws {
        try await withRefusingPort { url in
            try await kind.withProvider { provider, _ in
                let error = await failure(of: TestTarget(url, path: "/echo"), on: provider)
                guard case .serverUnreachable = error else {
                    Issue.record("expected serverUnreachable, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test(arguments: TransportKind.networked)
    func anUnresolvableHostIsServerUnreachable(kind: TransportKind) async throws {
        try await kind.withProvider { provider, _ in
            // The machine's resolver answers `.invalid` at once when it can
            // run; the time-out only has to outlast a loaded run (under the
            // thread sanitizer nothing was heard for 30 s once). What is
            // checked is the kind of failure, not how soon it comes.
            let target = TestTarget(try #require(URL(string: "http://courier-no-such-host.invalid")), path: "/echo", timeout: 120)
            let error = await failure(of: target, on: provider)
            guard case .serverUnreachable = error else {
                Issue.record("expected serverUnreachable, got \(String(describing: error))")
                return
            }
        }
    }

    /// Streamed: a progress handler makes both transports take their
    /// streaming path; without one, they hand the body over whole.
    @Test(arguments: TransportKind.networked, [false, true])
    func aFractionalTimeOutFailsWithTimedOut(kind: TransportKind, streamed: Bool) async throws {
        try await kind.withProvider { provider, server in
            let gate = Gate()
            server.route("/hold") { _ in
                await gate.wait()
                return .text("late")
            }
            let error = await failure(of: TestTarget(server.baseURL, path: "/hold", timeout: 0.5), on: provider,
                                      progress: progress(streamed: streamed))
            gate.open()
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: TransportKind.networked, [false, true])
    func cancellingTheTaskCancelsAndClosesTheConnection(kind: TransportKind, streamed: Bool) async throws {
        try await kind.withProvider { provider, server in
            let gate = Gate()
            server.route("/hold") { _ in
                await gate.wait()
                return .text("late")
            }
            let task = Task {
                try await provider.request(TestTarget(server.baseURL, path: "/hold"), options: RequestOptions(progress: progress(streamed: streamed)))
            }
            let received = try await withDeadline { await server.waitForRequest(to: "/hold") }
            task.cancel()
            let error = await task.result.failure as? NetworkError
            #expect(error?.isCancelled == true, "got \(String(describing: error))")
            try await withDeadline(120, "the server seeing the connection close") {
                await server.waitForClose(ofConnection: received.connectionID)
            }
            gate.open()
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStatusCodeIsAResponseNotAnError(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/status/503"))
            #expect(response.statusCode == 503)
            #expect(response.data == Data("status 503".utf8))
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
