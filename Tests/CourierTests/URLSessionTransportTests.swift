import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The URLSession transport: progress, downloads, redirects, encodings.
@Suite struct URLSessionTransportTests {
    let provider = Provider<TestTarget>()

    /// Foundation's URL cache would write whole responses, under URLs with
    /// their queries and tokens, to disk (on Apple platforms): a transport
    /// made without a configuration, the shared one included, has none. A
    /// configuration given by the caller is kept as it is.
    @Test func foundationsURLCacheIsOffUnlessAConfigurationAsksForIt() {
        #expect(URLSessionTransport().sessionConfiguration.urlCache == nil)
        #expect(URLSessionTransport.shared.sessionConfiguration.urlCache == nil)
        #expect(URLSessionTransport.shared.sessionConfiguration.requestCachePolicy == .reloadIgnoringLocalCacheData)
        let own = URLSessionConfiguration.default
        own.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        #expect(URLSessionTransport(sessionConfiguration: own).sessionConfiguration.urlCache != nil)
    }

    @Test func uploadProgressArrivesInOrderAndReachesTheTotal() async throws {
        try await withServer { server in
            let reports = Mutex<[TransferProgress]>([])
            let body = LoopbackServer.bytes(count: 3_000_000, seed: 2)
            let options = RequestOptions(progress: { progress in reports.withLock { $0.append(progress) } })
            _ = try await provider.request(TestTarget(server.baseURL, method: .post, task: .requestData(body)), options: options)
            let uploads = reports.withLock { $0 }.filter { $0.direction == .upload }
            #expect(!uploads.isEmpty)
            #expect(uploads.map(\.completedBytes) == uploads.map(\.completedBytes).sorted())
            #expect(uploads.last?.completedBytes == Int64(body.count))
            #expect(uploads.last?.totalBytes == Int64(body.count))
            #expect(uploads.last?.isFinished == true)
        }
    }

    /// A body the transfer stage writes as it arrives and counts against no
    /// limit then (a download's) is bounded like a streamed call's: URLSession
    /// cannot wait for that reader either, and a slow disk or a busy machine
    /// holds it up. Here the reader never reads: past the transport's unread bound
    /// the transfer stops at once, and the read fails with the read-ahead
    /// limit, instead of 8 MB waiting in memory for it. (Before, only a
    /// streamed call's body was bounded, and this transfer ran to its end.)
    @Test func aBodyReadAsItArrivesIsBoundedWhenItsReaderFallsBehind() async throws {
        try await withServer { server in
            let bound = 256 << 10
            let transport = URLSessionTransport(maximumUnreadBytes: bound)
            let control = TransferControl()
            let request = TransportRequest(urlRequest: URLRequest(url: server.baseURL.appendingPathComponent("bytes/8000000")),
                                           collectsBody: false, handsBodyToCaller: false, control: control)
            let response = try await transport.send(request)
            try await waitUntil("the transfer stops at the unread bound", within: 60) { control.isAborted }
            do throws(NetworkError) {
                let body = try await response.body.collect(upTo: 16 << 20)
                Issue.record("expected the read-ahead limit, read \(body.count) bytes")
            } catch {
                guard case .responseTooLarge(let limit) = error else { Issue.record("got \(error)"); return }
                #expect(limit == ResponseTooLarge(limit: .readAhead, bytes: Int64(bound)))
            }
        }
    }

    @Test func aTwentyMegabyteDownloadIsExactlyWhatTheServerSent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            let destination = directory.file("nested/download.bin")
            let reports = Mutex<[TransferProgress]>([])
            let target = TestTarget(server.baseURL, path: "/bytes/20000000", task: .downloadDestination(DownloadDestinations.file(destination)))
            let response = try await provider.request(target, options: RequestOptions(progress: { progress in reports.withLock { $0.append(progress) } }))
            #expect(response.fileURL == destination)
            #expect(response.data.isEmpty)
            let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
            #expect((attributes[.size] as? NSNumber)?.intValue == 20_000_000)
            #expect(try SHA256.hex(fileAt: destination) == response.value(forHTTPHeaderField: "X-Body-SHA256"))
            let downloads = reports.withLock { $0 }.filter { $0.direction == .download }
            #expect(downloads.count > 1)
            #expect(downloads.map(\.completedBytes) == downloads.map(\.completedBytes).sorted())
            #expect(downloads.last?.completedBytes == 20_000_000)
            #expect(downloads.last?.fractionCompleted == 1)
        }
    }

    @Test func aDownloadReplacesAPreviousFileOnlyWhenAsked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            let destination = directory.file("file.bin")
            try Data("old".utf8).write(to: destination)
            let keep: DownloadDestination = { _, _ in (destination, []) }
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, path: "/bytes/10", task: .downloadDestination(keep)))
            }
            guard case .downloadFailed(.destinationExists) = error else {
                Issue.record("expected downloadFailed, got \(String(describing: error))")
                return
            }
            #expect(try Data(contentsOf: destination) == Data("old".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["file.bin"])
            _ = try await provider.request(TestTarget(server.baseURL, path: "/bytes/10", task: .downloadDestination(DownloadDestinations.file(destination))))
            #expect(try Data(contentsOf: destination) == LoopbackServer.bytes(count: 10))
        }
    }

    /// The download is placed by the file its final response names, so a
    /// plugin that rebuilds the response (a new `Response` with the same
    /// `fileURL`) still gets the file at its destination.
    @Test func aDownloadIsPlacedWhenAPluginRebuildsItsResponse() async throws {
        struct Rebuilds: Plugin {
            func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
                result.map { Response(statusCode: $0.statusCode, data: $0.data, request: $0.request, fileURL: $0.fileURL) }
            }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await withServer { server in
            let destination = directory.file("rebuilt.bin")
            let response = try await Provider<TestTarget>(plugins: [Rebuilds()])
                .request(TestTarget(server.baseURL, path: "/bytes/1000", task: .downloadDestination(DownloadDestinations.file(destination))))
            #expect(response.fileURL == destination)
            #expect(try Data(contentsOf: destination) == LoopbackServer.bytes(count: 1000))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["rebuilt.bin"])
        }
    }

    @Test func aChunkedBodyArrivesWhole() async throws {
        try await withServer { server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/chunked/100000", task: .requestPlain, headers: nil)
                .with { $0.path = "/chunked/100000" })
            #expect(response.data == LoopbackServer.bytes(count: 100_000, seed: 7))
        }
    }

    @Test(arguments: [301, 302, 303])
    func classicRedirectsAreFollowed(code: Int) async throws {
        try await withServer { server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/redirect/\(code)",
                                                                 task: .requestParameters(parameters: ["to": "/echo?landed=1"], encoding: URLEncoding.queryString)))
            #expect(response.statusCode == 200)
            #expect(try Echo(response).query == "landed=1")
        }
    }

    @Test(arguments: [307, 308])
    func aPOSTThroughA307Or308KeepsItsMethodAndBody(code: Int) async throws {
        try await withServer { server in
            let body = LoopbackServer.bytes(count: 50_000, seed: 4)
            let target = TestTarget(server.baseURL, path: "/redirect/\(code)", method: .post,
                                    task: .requestCompositeData(bodyData: body, urlParameters: ["to": "/echo"]))
            let response = try await provider.request(target)
            let echo = try Echo(response)
            #expect(echo.method == "POST")
            #expect(echo.bodyData == body)
        }
    }

    @Test func anUploadedFileSurvivesA307() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("payload.bin")
        let bytes = LoopbackServer.bytes(count: 200_000, seed: 8)
        try bytes.write(to: file)
        try await withServer { server in
            server.route("/moved") { _ in LoopbackResponse(status: 307, headers: [("Location", "/echo")]) }
            let response = try await provider.request(TestTarget(server.baseURL, path: "/moved", method: .put, task: .uploadFile(file)))
            #expect(try Echo(response).bodyData == bytes)
        }
    }

    @Test func credentialsNeverFollowARedirectToAnotherOrigin() async throws {
        try await withServer { first in
            try await withServer { second in
                first.route("/away") { request in
                    let code = Int(request.query("code") ?? "302") ?? 302
                    return LoopbackResponse(status: code, headers: [("Location", second.url("/echo").absoluteString)])
                }
                // An ephemeral session has its own cookie jar, so no cookie another
                // test's server set for 127.0.0.1 is added on the way.
                let provider = Provider<TestTarget>(transport: URLSessionTransport(sessionConfiguration: .ephemeral))
                for code in [302, 307] {
                    let target = TestTarget(first.baseURL, path: "/away", method: .get,
                                            task: .requestParameters(parameters: ["code": code], encoding: URLEncoding.queryString),
                                            headers: ["Authorization": "Bearer secret", "Cookie": "session=secret", "X-Kept": "yes"])
                    let echo = try Echo(try await provider.request(target))
                    #expect(echo.header("Authorization") == nil, "redirect \(code)")
                    #expect(echo.header("Cookie") == nil, "redirect \(code)")
                    #expect(echo.header("X-Kept") == "yes", "redirect \(code)")
                }
                #expect(first.requests(to: "/away").allSatisfy { $0.header("Authorization") == "Bearer secret" })
            }
        }
    }

    @Test func aRedirectLoopEndsWithAClearError() async throws {
        try await withServer { server in
            server.route("/loop") { _ in LoopbackResponse(status: 307, headers: [("Location", "/loop")]) }
            let transfer = TransferConfiguration(redirects: .init(maximum: 3))
            let error = await #expect(throws: NetworkError.self) {
                try await Provider<TestTarget>(transfer: transfer).request(TestTarget(server.baseURL, path: "/loop"))
            }
            #expect("\(error!)".contains("more than 3 redirects"))
            #expect(server.hits("/loop") == 4)
        }
    }

    @Test func redirectsCanBeReturnedInsteadOfFollowed() async throws {
        try await withServer { server in
            let transfer = TransferConfiguration(redirects: .init(follows: false))
            let response = try await Provider<TestTarget>(transfer: transfer)
                .request(TestTarget(server.baseURL, path: "/redirect/302"))
            #expect(response.statusCode == 302)
            #expect(response.value(forHTTPHeaderField: "Location") == "/echo")
            #expect(server.hits("/echo") == 0)
        }
    }

    /// Opted in, a body URLSession decoded by itself arrives without the
    /// header that says it was encoded.
    @Test func aBodyURLSessionDecodedIsHandedOverWithoutItsEncoding() async throws {
        try await withServer { server in
            let text = Data(String(repeating: "courier ", count: 5000).utf8)
            let gzipped = StoredGzip.make(text)
            server.route("/gzipped") { _ in
                LoopbackResponse(headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], body: .data(gzipped))
            }
            let provider = Provider<TestTarget>(transport: URLSessionTransport(decodesCompressedResponses: true))
            let response = try await provider.request(TestTarget(server.baseURL, path: "/gzipped"))
            #expect(server.requests(to: "/gzipped").map { $0.header("Accept-Encoding") } == ["gzip, deflate"])
            #expect(response.data == text)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(text.count))
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        }
    }

    @Test func aHeadRequestHasNoBody() async throws {
        try await withServer { server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/bytes/1000", method: .head))
            #expect(response.statusCode == 200)
            #expect(response.data.isEmpty)
            #expect(server.requests(to: "/bytes/1000").last?.method == "HEAD")
        }
    }
}

extension TestTarget {
    func with(_ change: (inout TestTarget) -> Void) -> TestTarget {
        var copy = self
        change(&copy)
        return copy
    }
}
