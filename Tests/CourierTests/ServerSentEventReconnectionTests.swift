import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A transport that answers its n-th call with the n-th reply of a script (a
/// 204 past its end), and keeps the `Last-Event-ID` of each call.
private final class ScriptedEventTransport: Transport {
    struct Reply: Sendable {
        var text: String
        /// Whether the connection breaks off after the text instead of ending.
        var breaksOff = false
    }

    private let script: [Reply]
    private let calls = Locked<[String?]>([])

    init(_ script: [Reply]) {
        self.script = script
    }

    /// The `Last-Event-ID` each call carried, in order.
    var lastEventIDs: [String?] { calls.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        let index = calls.withLock { calls in
            calls.append(request.urlRequest.value(forHTTPHeaderField: "Last-Event-ID"))
            return calls.count - 1
        }
        let (body, writer) = ResponseBody.makeStream()
        guard index < script.count else {
            writer.finish()
            return TransportResponse(statusCode: 204, url: request.url, headerFields: [:], body: body)
        }
        writer.yield(Data(script[index].text.utf8))
        if script[index].breaksOff {
            writer.fail(URLError(.networkConnectionLost))
        } else {
            writer.finish()
        }
        return TransportResponse(statusCode: 200, url: request.url, headerFields: ["Content-Type": "text/event-stream"],
                                 body: body)
    }
}

private let base = URL(string: "http://events.test")!  // A literal URL.

/// A policy that reconnects at once, so the tests wait for nothing.
private let atOnce = ServerSentEventReconnection(maximumAttempts: 2, delay: 0.001, minimumDelay: 0.001, maximumDelay: 0.001)

private func read(_ transport: ScriptedEventTransport) async throws -> [String] {
    let provider = Provider<TestTarget>(transport: transport)
    var seen: [String] = []
    for try await event in try await provider.serverSentEvents(TestTarget(base), reconnection: atOnce) {
        seen.append(event.data)
    }
    return seen
}

@Suite struct ServerSentEventReconnectionTests {
    /// The connection drops after `id: 2` was read but before its event was
    /// dispatched: the caller never got event 2, so the reconnection asks
    /// for what follows event 1, as a browser's `EventSource` does.
    @Test func theLastEventIDIsTheLastDispatchedEventsNotTheLastIDRead() async throws {
        let transport = ScriptedEventTransport([
            .init(text: "id: 1\ndata: one\n\nid: 2\ndata: tw", breaksOff: true),
            .init(text: "id: 2\ndata: two\n\n"),
        ])
        #expect(try await read(transport) == ["one", "two"])
        #expect(transport.lastEventIDs == [nil, "1", "2"])
    }

    /// An `id` field with no value resets the ID: the next connection
    /// carries no `Last-Event-ID` at all, not an empty one.
    @Test func anEmptyIDSendsNoHeader() async throws {
        let transport = ScriptedEventTransport([.init(text: "id: 1\ndata: one\n\nid\ndata: two\n\n")])
        #expect(try await read(transport) == ["one", "two"])
        #expect(transport.lastEventIDs == [nil, nil])
    }

    /// A server that sends only comments is stopped once the time between
    /// events passes, when its next bytes arrive; the comments come every
    /// 20 ms, so the 50 ms limit is passed by the fourth at the latest.
    @Test func aStreamOfCommentsAloneEndsAtTheTimeBetweenEvents() async throws {
        struct Comments: Transport {
            func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
                let (body, writer) = ResponseBody.makeStream()
                Task {
                    // Bounded: the test fails long before the last comment.
                    for _ in 0..<500 {
                        writer.yield(Data(": still here\n".utf8))
                        try? await Task.sleep(nanoseconds: 20_000_000)
                    }
                    writer.finish()
                }
                return TransportResponse(statusCode: 200, url: request.url, headerFields: [:], body: body)
            }
        }
        let provider = Provider<TestTarget>(transport: Comments())
        let events = try await provider.serverSentEvents(TestTarget(base), maximumTimeBetweenEvents: 0.05)
        do {
            for try await _ in events {}
            Issue.record("expected the stream to time out")
        } catch {
            guard case .timedOut(let reason as TransferTimeout) = error else { Issue.record("got \(error)"); return }
            #expect(reason == .betweenEvents(0.05))
            #expect("\(reason)".contains("maximumTimeBetweenEvents"))
        }
    }
}
