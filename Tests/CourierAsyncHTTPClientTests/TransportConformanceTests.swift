import Courier
import CourierTestSupport
import Foundation
import Testing

/// One suite, run against every transport, so `URLSessionTransport` and
/// `AsyncHTTPClientTransport` behave alike: bodies, progress, downloads and
/// load here; errors and redirects in the extensions beside this file.
@Suite struct TransportConformanceTests {
    // MARK: - Request bodies

    @Test(arguments: TransportKind.allCases)
    func aDataBodyArrivesWholeWithOrderedUploadProgress(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let body = LoopbackServer.bytes(count: 3_000_000, seed: 2)
            let progress = Mutex<[TransferProgress]>([])
            let options = RequestOptions(progress: { report in progress.withLock { $0.append(report) } })
            let response = try await provider.request(TestTarget(server.baseURL, method: .post, task: .requestData(body)), options: options)
            #expect(try Echo(response).bodyData == body)
            let uploads = reports(progress.withLock { $0 }, .upload)
            #expect(!uploads.isEmpty)
            #expect(uploads.map(\.completedBytes) == uploads.map(\.completedBytes).sorted())
            #expect(uploads.last?.completedBytes == Int64(body.count))
            #expect(uploads.last?.totalBytes == Int64(body.count))
            #expect(uploads.last?.isFinished == true)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anUploadedFileArrivesWhole(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("payload.bin")
        let bytes = LoopbackServer.bytes(count: 2_000_000, seed: 3)
        try bytes.write(to: file)
        try await kind.withProvider { provider, server in
            let progress = Mutex<[TransferProgress]>([])
            let options = RequestOptions(progress: { report in progress.withLock { $0.append(report) } })
            let response = try await provider.request(TestTarget(server.baseURL, method: .put, task: .uploadFile(file)), options: options)
            #expect(response.statusCode == 200)
            #expect(server.requests(to: "/echo").last?.body == bytes)
            let uploads = reports(progress.withLock { $0 }, .upload)
            #expect(uploads.map(\.completedBytes) == uploads.map(\.completedBytes).sorted())
            #expect(uploads.last?.completedBytes == Int64(bytes.count))
        }
    }

    @Test(arguments: TransportKind.allCases, [1_000, 12_000_000])
    func aMultipartBodyArrivesWhole(kind: TransportKind, fileSize: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("part.bin")
        let bytes = LoopbackServer.bytes(count: fileSize, seed: 5)
        try bytes.write(to: file)
        try await kind.withProvider { provider, server in
            let parts = [
                MultipartFormBodyPart(provider: .data(Data("meta".utf8)), name: "meta"),
                MultipartFormBodyPart(provider: .file(file), name: "file", mimeType: "application/octet-stream"),
            ]
            _ = try await provider.request(TestTarget(server.baseURL, method: .post, task: .uploadMultipart(parts)))
            let request = try #require(server.requests(to: "/echo").last)
            let contentType = try #require(request.header("Content-Type"))
            let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
            let header = Data("Content-Disposition: form-data; name=\"file\"; filename=\"part.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            let start = try #require(request.body.range(of: header)).upperBound
            #expect(request.body.count >= start + bytes.count)
            #expect(SHA256.hex(request.body.subdata(in: start..<min(request.body.count, start + bytes.count))) == SHA256.hex(bytes))
            #expect(request.body.suffix(boundary.count + 8) == Data("\r\n--\(boundary)--\r\n".utf8))
        }
    }

    // MARK: - Response bodies

    @Test(arguments: TransportKind.allCases)
    func aTwentyMegabyteDownloadIsExactlyWhatTheServerSent(kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await kind.withProvider { provider, server in
            let destination = directory.file("nested/download.bin")
            let progress = Mutex<[TransferProgress]>([])
            let target = TestTarget(server.baseURL, path: "/bytes/20000000", task: .downloadDestination(DownloadDestinations.file(destination)))
            let response = try await provider.request(target, options: RequestOptions(progress: { report in progress.withLock { $0.append(report) } }))
            #expect(response.fileURL == destination)
            #expect(response.data.isEmpty)
            let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
            #expect((attributes[.size] as? NSNumber)?.intValue == 20_000_000)
            #expect(try SHA256.hex(fileAt: destination) == response.value(forHTTPHeaderField: "X-Body-SHA256"))
            let downloads = reports(progress.withLock { $0 }, .download)
            #expect(downloads.count > 1)
            #expect(downloads.map(\.completedBytes) == downloads.map(\.completedBytes).sorted())
            #expect(downloads.last?.completedBytes == 20_000_000)
            #expect(downloads.last?.fractionCompleted == 1)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aChunkedBodyArrivesWhole(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/chunked/100000"))
            #expect(response.statusCode == 200)
            #expect(response.data == LoopbackServer.bytes(count: 100_000, seed: 7))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aHeadRequestHasNoBody(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL, path: "/bytes/1000", method: .head))
            #expect(response.statusCode == 200)
            #expect(response.data.isEmpty)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "1000")
            #expect(server.requests(to: "/bytes/1000").last?.method == "HEAD")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theResponseCarriesURLStatusHeadersAndRequest(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            server.route("/made") { _ in .text("made", status: 201, headers: [("X-Thing", "one")]) }
            let response = try await provider.request(TestTarget(server.baseURL, path: "/made"))
            #expect(response.statusCode == 201)
            #expect(response.response?.statusCode == 201)
            #expect(response.response?.url == server.url("/made"))
            #expect(response.value(forHTTPHeaderField: "x-thing") == "one")
            #expect(response.request?.url == server.url("/made"))
            #expect(response.data == Data("made".utf8))
        }
    }

    // MARK: - Response heads

    /// A field the server repeats reads as one value on every transport:
    /// its values joined, found in any letter case, and once in the
    /// `HTTPURLResponse`. Sent in one spelling, the values keep their order;
    /// in two spellings, URLSession on Linux loses the order (its fields are
    /// a dictionary), and the values join in the order of the spellings, the
    /// same on every run.
    @Test(arguments: TransportKind.allCases)
    func aRepeatedFieldReadsAsOneJoinedValue(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            server.route("/repeated") { _ in
                LoopbackResponse(headers: [("x-tag", "second"), ("Content-Type", "text/plain"), ("X-Tag", "first"),
                                           ("Vary", "Accept"), ("Vary", "Origin")], body: .data(Data("ok".utf8)))
            }
            let response = try await provider.request(TestTarget(server.baseURL, path: "/repeated"))
            #expect(response.data == Data("ok".utf8))
            let tags = kind == .urlSession ? "first, second" : "second, first"
            #expect(response.value(forHTTPHeaderField: "X-TAG") == tags)
            #expect(response.value(forHTTPHeaderField: "vary") == "Accept, Origin")
            #expect(response.value(forHTTPHeaderField: "content-type") == "text/plain")
            #expect(response.value(forHTTPHeaderField: "X-Missing") == nil)
            let head = try #require(response.response)
            #expect(head.value(forHTTPHeaderField: "x-tag") == tags)
            #expect(head.allHeaderFields.keys.filter { ($0 as? String)?.lowercased() == "x-tag" }.count == 1)
        }
    }

    // MARK: - Load

    @Test(arguments: TransportKind.allCases)
    func twoHundredRequestsAtThirtyTwoConcurrentAllSucceed(kind: TransportKind) async throws {
        try await kind.withProvider { provider, server in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                var statuses: [Int] = []
                for index in 0..<200 {
                    if index >= 32, let status = try await group.next() { statuses.append(status) }
                    group.addTask {
                        let response = try await provider.request(TestTarget(server.baseURL, path: "/echo", task: .requestParameters(
                            parameters: ["n": index], encoding: URLEncoding.queryString)))
                        return try Echo(response).query == "n=\(index)" ? response.statusCode : -1
                    }
                }
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(server.hits("/echo") == 200)
        }
    }
}
