import AsyncHTTPClient
import Courier
@testable import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// The transport runs each request's delegate on the loop where its
/// connection most likely is: one loop for a sequence of requests, the loops
/// in turn for concurrent ones, the caller's own when it runs on one.
@Suite struct EventLoopChoiceTests {
    @Test func aSequenceOfRequestsStaysOnOneLoop() async throws {
        try await withGroup(loops: 3) { group in
            let choice = EventLoopChoice(group: group)
            var slots: [Int?] = []
            for _ in 0..<5 {
                let (_, slot) = choice.take()
                slots.append(slot)
                if let slot { choice.release(slot) }
            }
            #expect(slots == [0, 0, 0, 0, 0])
            #expect(choice.requestsUnderway == [0, 0, 0])
        }
    }

    @Test func concurrentRequestsSpreadOverTheLoops() async throws {
        try await withGroup(loops: 3) { group in
            let choice = EventLoopChoice(group: group)
            let slots = (0..<6).compactMap { _ in choice.take().slot }
            #expect(slots == [0, 1, 2, 0, 1, 2])
            #expect(choice.requestsUnderway == [2, 2, 2])
            // The loop where a request ended is the least busy one now.
            choice.release(1)
            #expect(choice.take().slot == 1)
        }
    }

    @Test func aCallerOnALoopOfTheGroupKeepsItsLoop() async throws {
        try await withGroup(loops: 3) { group in
            let choice = EventLoopChoice(group: group)
            let third = choice.loops[2]
            let slot = try await third.submit { choice.take().slot }.get()
            #expect(slot == 2)
            #expect(choice.requestsUnderway == [0, 0, 1])
        }
    }

    @Test func aGroupOfOneLoopHasNothingToChoose() async throws {
        try await withGroup(loops: 1) { group in
            let choice = EventLoopChoice(group: group)
            #expect(choice.take().slot == nil)
            #expect(choice.requestsUnderway == [0])
        }
    }

    /// Every request gives its loop back however it ends, or the transport
    /// would count it as busy for ever and send everything else elsewhere:
    /// a response collected whole and one streamed, a refused connection, an
    /// idle time-out, a reset in the body, and a caller that gave up.
    @Test func everyRequestGivesItsLoopBackHoweverItEnds() async throws {
        try await withGroup(loops: 2) { group in
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
            let transport = AsyncHTTPClientTransport(client: client)
            let provider = Provider<TestTarget>(transport: transport)
            do {
                try await withRefusingPort { refusing in
                    try await withServer { server in
                        try await withFaultyServer { faulty in
                            try await endEveryWay(provider, transport, server: server, faulty: faulty, refusing: refusing)
                        }
                    }
                }
            } catch {
                Issue.record(error)
            }
            try await client.shutdown()
        }
    }

    private func endEveryWay(_ provider: Provider<TestTarget>, _ transport: AsyncHTTPClientTransport,
                             server: LoopbackServer, faulty: FaultyServer, refusing: URL) async throws {
        let gate = Gate()
        server.route("/held") { _ in
            await gate.wait()
            return .text("late")
        }
        #expect(try await provider.request(TestTarget(server.baseURL, path: "/status/200")).statusCode == 200)
        let streamed = try await provider.request(TestTarget(server.baseURL, path: "/status/200"),
                                                  options: RequestOptions(progress: { _ in }))
        #expect(streamed.statusCode == 200)
        #expect(transport.loops.requestsUnderway == [0, 0])
        #expect(await failure(of: TestTarget(refusing, path: "/echo"), on: provider) != nil)
        #expect(await failure(of: TestTarget(faulty.url(.stallAfterHead), path: "", timeout: 0.3), on: provider) != nil)
        #expect(await failure(of: TestTarget(faulty.url(.resetMidBody), path: ""), on: provider) != nil)
        let held = Task { try await provider.request(TestTarget(server.baseURL, path: "/held")) }
        try await waitUntil("the held request is under way") { transport.loops.requestsUnderway.reduce(0, +) == 1 }
        held.cancel()
        await #expect(throws: NetworkError.self) { try await held.value }
        gate.open()
        #expect(transport.loops.requestsUnderway == [0, 0])
    }

    private func withGroup(loops: Int, _ body: (MultiThreadedEventLoopGroup) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: loops)
        do {
            try await body(group)
        } catch {
            Issue.record(error)
        }
        try await group.shutdownGracefully()
    }
}
