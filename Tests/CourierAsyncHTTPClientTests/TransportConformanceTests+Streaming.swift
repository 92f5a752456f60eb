import Courier
import CourierTestSupport
import Foundation
import Testing

/// Streamed calls over real connections, on every networked transport: events
/// arrive as they are sent, a reader that leaves closes the connection, the
/// idle time-out runs between chunks, and an event stream reconnects.
@Suite struct StreamingConformanceTests {
    /// The server sends the second event only after the client has read the
    /// first: a transport that held the body until its end would never see
    /// either, and the test would end at its deadline.
    @Test(arguments: TransportKind.networked)
    func theFirstEventArrivesBeforeTheServerSendsTheSecond(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let firstRead = Gate()
            server.route("/events") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream")], body: .streamed { writer in
                    try await writer.write("id: 1\ndata: first\n\n")
                    await firstRead.wait()
                    try await writer.write("id: 2\ndata: second\n\n")
                })
            }
            try await withDeadline(120, "reading two events") {
                var seen: [String] = []
                for try await event in try await provider.stream(TestTarget(server.baseURL, path: "/events")).serverSentEvents {
                    seen.append(event.data)
                    if seen.count == 1 { firstRead.open() }
                }
                #expect(seen == ["first", "second"])
            }
        }
    }

    /// The server writes one event and then waits for ever: only the client
    /// closing the connection can end it. (How soon the server sees the close
    /// is a timing, measured alone, not here: under a full parallel run the
    /// event loops wait seconds for a core.)
    @Test(arguments: TransportKind.networked, [false, true])
    func aReaderThatLeavesClosesTheConnection(kind: TransportKind, cancelsTask: Bool) async throws {
        try await kind.withProvider { provider, server in
            let never = Gate()
            server.route("/events") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/event-stream")], body: .streamed { writer in
                    try await writer.write("data: only\n\n")
                    await never.wait()
                })
            }
            let target = TestTarget(server.baseURL, path: "/events", timeout: 600)
            if cancelsTask {
                let firstEvent = Gate()
                let reading = Task {
                    for try await _ in try await provider.stream(target).serverSentEvents { firstEvent.open() }
                }
                await firstEvent.wait()
                reading.cancel()
                let outcome = await reading.result
                guard case .failure(let error as NetworkError) = outcome, error.isCancelled else {
                    Issue.record("expected cancelled, got \(outcome)")
                    return
                }
            } else {
                for try await _ in try await provider.stream(target).serverSentEvents { break }
            }
            try await Self.waitUntilTheServerSeesTheClose(of: "/events", on: server)
            never.open()
        }
    }

    /// The head and one line arrive, then nothing: the idle time-out ends the
    /// stream between chunks. (On a machine so loaded that the head itself
    /// takes the whole time-out, the attempt says nothing and is made again.)
    @Test(arguments: TransportKind.networked)
    func theIdleTimeOutRunsBetweenChunks(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let never = Gate()
            defer { never.open() }
            server.route("/quiet") { _ in
                LoopbackResponse(body: .streamed { writer in
                    try await writer.write("first line\n")
                    await never.wait()
                })
            }
            // A starved machine can hold the head back for tens of seconds.
            for attempt in 1...30 {
                let response: StreamedResponse
                do {
                    response = try await provider.stream(TestTarget(server.baseURL, path: "/quiet", timeout: 4))
                } catch let error as NetworkError {
                    if case .timedOut = error, attempt < 30 { continue }
                    throw error
                }
                var lines: [String] = []
                do {
                    for try await line in response.lines { lines.append(line) }
                    Issue.record("expected the idle time-out")
                } catch let error as NetworkError {
                    guard case .timedOut(let reason as TransferTimeout) = error else { Issue.record("got \(error)"); return }
                    #expect(reason == .idle(4))
                }
                #expect(lines == ["first line"])
                return
            }
        }
    }

    /// A reader that takes longer over each chunk than the idle time-out is
    /// not the server being idle: the clock runs only while the reader waits.
    @Test(arguments: TransportKind.networked)
    func aSlowReaderIsNotTimedOut(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            // The whole body at once, so nothing is left for a starved
            // server to send late: only the reader is slow.
            server.route("/lines") { _ in
                LoopbackResponse(body: .data(Data("line 1\nline 2\nline 3\n".utf8)))
            }
            // The head may wait out the time-out on a machine too loaded to
            // serve it; that attempt says nothing and is made again.
            var opened: StreamedResponse?
            for attempt in 1...30 where opened == nil {
                do {
                    opened = try await provider.stream(TestTarget(server.baseURL, path: "/lines", timeout: 3))
                } catch let error as NetworkError {
                    guard case .timedOut = error, attempt < 30 else { throw error }
                }
            }
            let response = try #require(opened)
            var lines: [String] = []
            for try await line in response.lines {
                lines.append(line)
                // A slow consumer, the point of the test.
                try await Task.sleep(nanoseconds: 4_000_000_000)
            }
            #expect(lines == ["line 1", "line 2", "line 3"])
        }
    }

    /// The first connection sets an ID and a short retry and ends; the second
    /// must carry `Last-Event-ID`; the third is told 204, which ends the
    /// stream for good.
    @Test(arguments: TransportKind.networked)
    func anEventStreamReconnectsWithTheLastEventID(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            server.route("/feed") { request in
                switch request.header("Last-Event-ID") {
                case nil:
                    return LoopbackResponse(headers: [("Content-Type", "text/event-stream")],
                                            body: .data(Data("retry: 10\nid: 41\ndata: a\n\nid: 42\ndata: b\n\n".utf8)))
                case "42":
                    return LoopbackResponse(headers: [("Content-Type", "text/event-stream")],
                                            body: .data(Data("id: 43\ndata: c\n\n".utf8)))
                default:
                    return LoopbackResponse(status: 204)
                }
            }
            let events = try await provider.serverSentEvents(TestTarget(server.baseURL, path: "/feed"),
                                                             reconnection: .init(maximumAttempts: 2, delay: 0.01, minimumDelay: 0.01))
            var seen: [String] = []
            for try await event in events { seen.append(event.data) }
            #expect(seen == ["a", "b", "c"])
            let requests = server.requests(to: "/feed")
            #expect(requests.map { $0.header("Last-Event-ID") } == [nil, "42", "43"])
            #expect(requests.first?.header("Accept") == "text/event-stream")
        }
    }

    @Test(arguments: TransportKind.networked)
    func reconnectionStopsAfterItsAttempts(kind: TransportKind) async throws {
        try await kind.withFaultyProvider { provider, server in
            // Each connection breaks off mid-body; two reconnections, then the
            // failure reaches the caller.
            let events = try await provider.serverSentEvents(TestTarget(server.url(.closeEarly), path: ""),
                                                             reconnection: .init(maximumAttempts: 2, delay: 0.01, minimumDelay: 0.01))
            do {
                for try await _ in events {}
                Issue.record("expected the stream to fail")
            } catch let error as NetworkError {
                guard case .connectionLost = error else { Issue.record("got \(error)"); return }
            }
        }
    }

    /// URLSession counts bytes as they arrive (it cannot wait for its
    /// reader), so on a loaded machine the limit can pass before the call has
    /// handed the stream over: then the call itself fails with it.
    @Test(arguments: TransportKind.networked)
    func anEndlessBodyStopsAtTheStreamsLimit(kind: TransportKind) async throws {
        try await kind.withFaultyProvider { provider, server in
            var received = 0
            do {
                let response = try await provider.stream(TestTarget(server.url(.endlessChunked), path: ""),
                                                         streamOptions: .init(maximumBytes: 4 << 20))
                for try await chunk in response.body { received += chunk.count }
                Issue.record("expected the limit")
            } catch let error as NetworkError {
                guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
                #expect(limit == ResponseTooLarge(limit: .stream, bytes: 4 << 20))
            }
            #expect(received <= 4 << 20)
        }
    }

    @Test(arguments: TransportKind.networked)
    func aLargeBodyStreamsWhole(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/bytes/5000000", validationType: .successCodes))
            var count = 0
            let expected = LoopbackServer.bytes(count: 5_000_000)
            for try await chunk in response.body {
                #expect(chunk == expected[count..<(count + chunk.count)])
                count += chunk.count
            }
            #expect(count == 5_000_000)
        }
    }

    /// Every chunk kept until the body's end still holds what the server
    /// sent: a chunk the client hands on without a copy (AsyncHTTPClient's
    /// large parts) is not changed by the reads that follow it.
    @Test(arguments: TransportKind.networked)
    func chunksKeptUntilTheEndHoldTheirBytes(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let response = try await provider.stream(TestTarget(server.baseURL, path: "/bytes/8000000",
                                                                validationType: .successCodes))
            var chunks: [Data] = []
            for try await chunk in response.body {
                chunks.append(chunk)
            }
            var whole = Data()
            for chunk in chunks {
                whole.append(chunk)
            }
            let expected = LoopbackServer.bytes(count: 8_000_000)
            #expect(whole.count == expected.count)
            // Compared whole (one memory comparison); only a mismatch looks
            // for the first byte that differs, since a diff of 8 MB, or a
            // walk over them byte by byte, would hold a thread of the
            // cooperative pool for seconds.
            if whole != expected {
                let firstDifference = zip(whole, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                Issue.record("the kept chunks differ from the served body, first at byte \(firstDifference ?? whole.count)")
            }
        }
    }

    /// Waits until `server` sees the connection of the last request to `path`
    /// close: at most 120 s, a bound a loaded machine cannot reach (how soon
    /// is a timing, for the benchmark).
    static func waitUntilTheServerSeesTheClose(of path: String, on server: LoopbackServer) async throws {
        let connection = try #require(server.requests(to: path).last?.connectionID)
        try await withDeadline(120, "the server seeing the connection close") {
            await server.waitForClose(ofConnection: connection)
        }
    }
}
