import Courier
import CourierTestSupport
import Foundation
import Testing

/// The conformance cases that matter over TLS, against the loopback server
/// speaking HTTPS with a certificate of the private test root, which the
/// transport is told to trust; each over HTTP/1.1 and over HTTP/2 where the
/// transport offers it. On Linux, `URLSessionTransport` joins when the
/// system's bundle holds the root (`Tests/with-test-root-trusted`, as CI runs them).
@Suite struct HTTPSConformanceTests {
    /// Each transport that can trust the test root, with a server that offers
    /// HTTP/2 and one that does not.
    static let cases: [(TransportKind, Bool)] = TransportKind.trustingTestRoot.flatMap { [($0, false), ($0, true)] }

    func withHTTPSProvider<Result: Sendable>(
        _ kind: TransportKind,
        http2: Bool,
        transfer: TransferConfiguration = TransferConfiguration(),
        _ body: (Provider<TestTarget>, LoopbackServer) async throws -> Result
    ) async throws -> Result {
        try await kind.withProvider(tls: LoopbackTLS(offersHTTP2: http2), serverTrust: kind.testRootTrust, transfer: transfer, body)
    }

    @Test(arguments: Self.cases)
    func aRequestAndItsBodyGoOverHTTPS(kind: TransportKind, http2: Bool) async throws {
        try await withHTTPSProvider(kind, http2: http2) { provider, server in
            #expect(server.baseURL.scheme == "https")
            let body = LoopbackServer.bytes(count: 3_000_000, seed: 11)
            let response = try await provider.request(TestTarget(server.baseURL, method: .post, task: .requestData(body)))
            #expect(response.statusCode == 200)
            #expect(try Echo(response).bodyData == body)
        }
    }

    @Test(arguments: Self.cases)
    func anUploadedFileArrivesWhole(kind: TransportKind, http2: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("upload.bin")
        let bytes = LoopbackServer.bytes(count: 2_000_000, seed: 12)
        try bytes.write(to: file)
        try await withHTTPSProvider(kind, http2: http2) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL, method: .put, task: .uploadFile(file)))
            #expect(response.statusCode == 200)
            #expect(server.requests(to: "/echo").last?.body == bytes)
        }
    }

    @Test(arguments: Self.cases)
    func aDownloadArrivesWhole(kind: TransportKind, http2: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.file("download.bin")
        try await withHTTPSProvider(kind, http2: http2) { provider, server in
            let target = TestTarget(server.baseURL, path: "/bytes/4000000", task: .downloadDestination(DownloadDestinations.file(destination)))
            let response = try await provider.request(target)
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: destination) == LoopbackServer.bytes(count: 4_000_000))
        }
    }

    @Test(arguments: Self.cases)
    func aRedirectWithinHTTPSIsFollowed(kind: TransportKind, http2: Bool) async throws {
        try await withHTTPSProvider(kind, http2: http2) { provider, server in
            let location = server.url("/echo?after=redirect").absoluteString
            let target = TestTarget(server.baseURL, path: "/redirect/302", task: .requestParameters(
                parameters: ["to": location], encoding: URLEncoding.queryString))
            let response = try await provider.request(target)
            #expect(response.statusCode == 200)
            #expect(try Echo(response).query == "after=redirect")
        }
    }

    @Test(arguments: Self.cases)
    func aRedirectFromHTTPSToHTTPIsRefusedAndNothingIsSentInTheClear(kind: TransportKind, http2: Bool) async throws {
        try await withServer { plain in
            try await withHTTPSProvider(kind, http2: http2) { provider, server in
                let target = TestTarget(server.baseURL, path: "/redirect/302", task: .requestParameters(
                    parameters: ["to": plain.url("/echo").absoluteString], encoding: URLEncoding.queryString))
                let error = await failure(of: target, on: provider)
                guard case .redirectRefused(.insecureDowngrade) = error else {
                    Issue.record("expected redirectRefused(.insecureDowngrade), got \(String(describing: error))")
                    return
                }
                #expect(plain.requests.isEmpty)
            }
        }
    }

    @Test(arguments: Self.cases)
    func aCancelledHTTPSRequestEndsCancelled(kind: TransportKind, http2: Bool) async throws {
        try await withHTTPSProvider(kind, http2: http2) { provider, server in
            let call = Task { try await provider.request(TestTarget(server.baseURL, path: "/delay/30000")) }
            await server.waitForRequest(to: "/delay/30000")
            call.cancel()
            do {
                _ = try await call.value
                Issue.record("a cancelled request succeeded")
            } catch let error as NetworkError {
                #expect(error.isCancelled)
            }
        }
    }

    @Test(arguments: Self.cases)
    func aSilentHTTPSServerTimesOut(kind: TransportKind, http2: Bool) async throws {
        try await withHTTPSProvider(kind, http2: http2) { provider, server in
            let error = await failure(of: TestTarget(server.baseURL, path: "/delay/30000", timeout: 1), on: provider)
            guard case .timedOut(let reason as TransferTimeout) = error else {
                Issue.record("expected timedOut, got \(String(describing: error))")
                return
            }
            #expect(reason == .idle(1))
        }
    }
}
