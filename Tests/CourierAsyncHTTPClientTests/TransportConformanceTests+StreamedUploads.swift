import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import Testing

/// Request bodies from an `AsyncSequence` (`RequestTask.uploadStream`): sent
/// as they are made where the transport can (AsyncHTTPClient), read whole
/// first where it cannot (URLSession on Linux), and never sent twice when
/// they can be read once.
@Suite struct StreamedUploadTests {
    /// A body in `count` chunks of `size` bytes, as a one-shot sequence.
    static func chunks(_ count: Int, of size: Int, seed: UInt64 = 5) -> (AsyncStream<Data>, whole: Data) {
        let chunk = LoopbackServer.bytes(count: size, seed: seed)
        var whole = Data()
        for _ in 0..<count { whole.append(chunk) }
        let stream = AsyncStream<Data> { continuation in
            for _ in 0..<count { continuation.yield(chunk) }
            continuation.finish()
        }
        return (stream, whole)
    }

    @Test(arguments: TransportKind.networked, [true, false])
    func aStreamedBodyArrivesWhole(kind: TransportKind, lengthKnown: Bool) async throws {
        try await kind.withProvider { provider, server in
            let (stream, whole) = Self.chunks(40, of: 64 * 1024)  // 2.5 MiB
            let body = RequestBodyStream(stream, length: lengthKnown ? .known(Int64(whole.count)) : .unknown)
            let echo = try Echo(try await provider.request(TestTarget(server.baseURL, method: .put, task: .uploadStream(body))))
            #expect(echo.bodyData == whole)
            switch (kind, lengthKnown) {
            case (.asyncHTTPClient, false):
                #expect(echo.header("Transfer-Encoding") == "chunked", "a body of unknown length streams chunked")
                #expect(echo.header("Content-Length") == nil)
            default:
                // A known length is sent as it is; URLSession reads the body
                // whole first, and then knows it.
                #expect(echo.header("Content-Length") == String(whole.count))
            }
        }
    }

    /// Chunks that arrive while a write is in flight are joined into the
    /// next (AsyncHTTPClient): 20,000 chunks of 1 to 200 bytes, each its own
    /// pattern and some empty, arrive whole and in order, with and without a
    /// length, the joins past the limit included.
    @Test(arguments: TransportKind.networked, [true, false])
    func manySmallChunksArriveWholeAndInOrder(kind: TransportKind, lengthKnown: Bool) async throws {
        try await kind.withProvider { provider, server in
            var chunks = (0..<20_000).map { index in
                Self.chunk(index, count: index % 97 == 0 ? 0 : 1 + (index * 7919) % 200)
            }
            // One chunk past the join limit, so a join is written whole.
            chunks.insert(LoopbackServer.bytes(count: 1_200_000, seed: 9), at: 10_000)
            let whole = Self.joined(chunks)
            let stream = AsyncStream<Data> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            let body = RequestBodyStream(stream, length: lengthKnown ? .known(Int64(whole.count)) : .unknown)
            let echo = try Echo(try await provider.request(TestTarget(server.baseURL, method: .put, task: .uploadStream(body))))
            #expect(echo.bodyData.count == whole.count)
            #expect(echo.bodyData == whole)
        }
    }

    /// A join limit set lower (a server with many uploads at once) still
    /// sends every chunk whole and in order; 0 joins nothing past one chunk.
    @Test(arguments: [0, 4096])
    func aLowerUploadJoinLimitSendsTheBodyWholeAndInOrder(joinLimit: Int) async throws {
        let transport = AsyncHTTPClientTransport(configuration: .init(uploadJoinLimit: joinLimit))
        #expect(transport.configuration.uploadJoinLimit == joinLimit)
        // The transport's own client is shut down however the call ends.
        let outcome = await Result { () async throws -> Void in try await Self.sendManyChunks(on: transport) }
        try await transport.shutdown()
        try outcome.get()
    }

    /// Chunk `index` of a many-chunk body: `count` bytes counting up from
    /// `index`. Written in place, not mapped byte by byte: these bodies are
    /// made on a thread of Swift's cooperative pool (two threads on two
    /// cores), and in a debug build a byte-by-byte map of megabytes held that
    /// thread for seconds, stalling every other test's requests with it.
    private static func chunk(_ index: Int, count: Int) -> Data {
        var chunk = Data(count: count)
        chunk.withUnsafeMutableBytes { bytes in
            for offset in bytes.indices { bytes[offset] = UInt8(truncatingIfNeeded: index &+ offset) }
        }
        return chunk
    }

    /// `chunks` end to end, copied a chunk at a time (not byte by byte, as
    /// `Data(chunks.joined())` does).
    private static func joined(_ chunks: [Data]) -> Data {
        var whole = Data(capacity: chunks.reduce(0) { $0 + $1.count })
        for chunk in chunks { whole.append(chunk) }
        return whole
    }

    private static func sendManyChunks(on transport: AsyncHTTPClientTransport) async throws {
        try await withServer { server in
            let provider = Provider<TestTarget>(transport: transport)
            let chunks = (0..<3_000).map { index in Self.chunk(index, count: 1 + (index * 7919) % 3000) }
            let whole = Self.joined(chunks)
            let stream = AsyncStream<Data> { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            let echo = try Echo(try await provider.request(TestTarget(server.baseURL, method: .put,
                                                                      task: .uploadStream(RequestBodyStream(stream, length: .unknown)))))
            #expect(echo.bodyData == whole)
        }
    }

    /// The producer yields its second chunk only after the server has
    /// received the first: a transport that read the whole body before
    /// sending would wait for ever (and the test fail at its deadline).
    @Test func theAsyncHTTPClientTransportSendsABodyWhileItIsMade() async throws {
        try await TransportKind.asyncHTTPClient.withProvider { provider, server in
            let first = Data(repeating: 0x61, count: 1000)
            let second = Data(repeating: 0x62, count: 500)
            let stream = Self.stream(yielding: [first], thenOnceReceivedBy: server, [second])
            try await withDeadline(120, "sending a body while it is made") {
                let echo = try await Self.post(stream, to: server, on: provider)
                #expect(echo.bodyData == first + second)
            }
        }
    }

    /// A one-shot stream that yields `before`, waits until `server` has
    /// received their bytes at `/echo`, then yields `after` and ends.
    private static func stream(yielding before: [Data], thenOnceReceivedBy server: LoopbackServer,
                               _ after: [Data]) -> AsyncStream<Data> {
        AsyncStream<Data> { continuation in
            let producer = Task {
                for chunk in before { continuation.yield(chunk) }
                await server.waitForBodyBytes(to: "/echo", atLeast: before.reduce(0) { $0 + $1.count })
                for chunk in after { continuation.yield(chunk) }
                continuation.finish()
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    /// POSTs `stream`, of unknown length, to `/echo`.
    private static func post(_ stream: AsyncStream<Data>, to server: LoopbackServer, on provider: Provider<TestTarget>) async throws -> Echo {
        let target = TestTarget(server.baseURL, method: .post, task: .uploadStream(RequestBodyStream(stream, length: .unknown)))
        return try Echo(try await provider.request(target))
    }

    /// Two chunks yielded together, the second joined while the first is on
    /// its way, and then a producer that waits for the server to have both:
    /// the joined bytes go out when the first write ends, not with the
    /// producer's next chunk (which, here, would never come).
    @Test func joinedBytesAreSentWithoutWaitingForTheProducersNextChunk() async throws {
        try await TransportKind.asyncHTTPClient.withProvider { provider, server in
            let first = Data(repeating: 0x61, count: 64 * 1024)
            let second = Data(repeating: 0x62, count: 1000)
            let third = Data(repeating: 0x63, count: 10)
            let stream = Self.stream(yielding: [first, second], thenOnceReceivedBy: server, [third])
            try await withDeadline(120, "joined bytes sent while the producer waits") {
                let echo = try await Self.post(stream, to: server, on: provider)
                #expect(echo.bodyData == first + second + third)
            }
        }
    }

    @Test(arguments: TransportKind.networked, [1, -1])
    func aStreamThatBreaksItsLengthFailsTheCall(kind: TransportKind, difference: Int) async throws {
        try await kind.withProvider { provider, server in
            let (stream, whole) = Self.chunks(4, of: 1000)
            let announced = Int64(whole.count + difference)
            let target = TestTarget(server.baseURL, method: .post, task: .uploadStream(RequestBodyStream(stream, length: .known(announced))))
            let error = await failure(of: target, on: provider)
            guard case .requestBuildFailed(let failure as RequestBuildFailure) = error,
                  case .bodyStreamLength(let expected, let produced) = failure else {
                Issue.record("expected bodyStreamLength, got \(String(describing: error))")
                return
            }
            #expect(expected == announced)
            #expect(difference > 0 ? produced == Int64(whole.count) : produced > announced)
            #expect("\(failure)".contains("\(announced) bytes"))
        }
    }

    struct Broken: Error, CustomStringConvertible {
        var description: String { "the recording device went away" }
    }

    @Test(arguments: TransportKind.networked)
    func aStreamThatThrowsFailsTheCallWithItsReason(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let stream = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data(repeating: 1, count: 4096))
                continuation.finish(throwing: Broken())
            }
            let target = TestTarget(server.baseURL, method: .post, task: .uploadStream(RequestBodyStream(stream, length: .unknown)))
            let error = await failure(of: target, on: provider)
            guard case .requestBuildFailed(let failure as RequestBuildFailure) = error, case .unreadableBodyStream = failure else {
                Issue.record("expected unreadableBodyStream, got \(String(describing: error))")
                return
            }
            #expect("\(failure)".contains("the recording device went away"))
            #expect(server.hits("/echo") == 0, "no request reached the handler")
        }
    }

    /// A 307 keeps the body: a one-shot stream already sent cannot go
    /// again, so the 307 is the answer. A stream that can be read again, or
    /// one URLSession read whole first, follows it.
    @Test(arguments: TransportKind.networked, [RequestBodyStream.IterationBehavior.single, .multiple])
    func aOneShotStreamIsNotSentAgainToARedirect(kind: TransportKind, iteration: RequestBodyStream.IterationBehavior) async throws {
        try await kind.withProvider { provider, server in
            server.route("/upload") { _ in LoopbackResponse(status: 307, headers: [("Location", "/echo")]) }
            let parts = [Data("first ".utf8), Data("second".utf8)]
            let body = iteration == .multiple
                ? RequestBodyStream(chunks: parts)
                : RequestBodyStream(AsyncStream { continuation in
                    for part in parts { continuation.yield(part) }
                    continuation.finish()
                }, length: .known(12))
            let response = try await provider.request(TestTarget(server.baseURL, path: "/upload", method: .post, task: .uploadStream(body)))
            if kind == .asyncHTTPClient, iteration == .single {
                #expect(response.statusCode == 307)
                #expect(server.hits("/echo") == 0)
            } else {
                #expect(response.statusCode == 200)
                #expect(try Echo(response).bodyText == "first second")
            }
        }
    }

    /// A plugin of one's own that sends the request twice (ignoring
    /// `isBodyReplayable`) gets a clear error the second time, not an empty
    /// body sent as if it were the request's.
    @Test func aSecondSendingOfAOneShotStreamFailsClearly() async throws {
        struct SendsTwice: Plugin {
            func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
                #expect(!context.isBodyReplayable)
                _ = try await next(request)
                return try await next(request)
            }
        }
        try await TransportKind.asyncHTTPClient.withProvider(plugins: [SendsTwice()]) { provider, server in
            let (stream, _) = Self.chunks(2, of: 100)
            let target = TestTarget(server.baseURL, method: .post, task: .uploadStream(RequestBodyStream(stream, length: .unknown)))
            let error = await failure(of: target, on: provider)
            guard case .requestBuildFailed(let failure as RequestBuildFailure) = error, case .bodyStreamAlreadyRead = failure else {
                Issue.record("expected bodyStreamAlreadyRead, got \(String(describing: error))")
                return
            }
            #expect("\(failure)".contains("isBodyReplayable"))
            #expect(server.hits("/echo") == 1)
        }
    }

    /// A producer that stops yielding holds the upload until the idle
    /// time-out ends the call; then its sequence is let go (its task
    /// cancelled), not read on for ever after the call returned.
    ///
    /// The test keeps no reference to the sequence: the call is the only
    /// holder, so the sequence ends (and opens `released`) once the call
    /// lets it go, whether its reading had begun (on a loaded machine the
    /// time-out can come before the connection asks for the body) or not.
    @Test func aProducerThatWaitsIsLetGoWhenTheCallEnds() async throws {
        try await TransportKind.asyncHTTPClient.withProvider { provider, server in
            let released = Gate()
            let error = await failure(of: Self.uploadThatWaits(to: server.baseURL, released: released), on: provider)
            guard case .timedOut = error else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
            try await withDeadline(60, "the producer let go") { await released.wait() }
        }
    }

    /// A POST whose body yields 100 bytes and then waits for ever; its
    /// sequence opens `released` when it ends.
    private static func uploadThatWaits(to baseURL: URL, released: Gate) -> TestTarget {
        let stream = AsyncStream<Data> { continuation in
            continuation.onTermination = { _ in released.open() }
            continuation.yield(Data(repeating: 1, count: 100))
        }
        return TestTarget(baseURL, method: .post, task: .uploadStream(RequestBodyStream(stream, length: .unknown)), timeout: 1)
    }
}
