import Courier
import CourierTestSupport
import Foundation
import Testing

/// Multipart bodies as the server received them, part by part and byte for
/// byte, in memory and streamed from disk.
@Suite struct MultipartTests {
    let provider = Provider<TestTarget>()

    private func boundary(of request: RecordedRequest) throws -> String {
        let contentType = try #require(request.header("Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        return String(try #require(contentType.split(separator: "=", maxSplits: 1).last))
    }

    @Test func partsArriveExactlyAsEncoded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("notes.txt")
        try Data("file contents\n".utf8).write(to: file)
        let streamed = Data("streamed bytes".utf8)
        let parts = [
            MultipartFormBodyPart(provider: .data(Data("Ada".utf8)), name: "name"),
            MultipartFormBodyPart(provider: .file(file), name: "notes"),
            MultipartFormBodyPart(provider: .stream({ InputStream(data: streamed) }, length: UInt64(streamed.count)),
                                  name: "blob", fileName: "blob.bin", mimeType: "application/x-blob"),
            MultipartFormBodyPart(provider: .data(Data("{}".utf8)), name: "quote\"d", fileName: "a.json"),
        ]
        try await withServer { server in
            _ = try await provider.request(TestTarget(server.baseURL, method: .post, task: .uploadMultipart(parts)))
            let request = try #require(server.requests(to: "/echo").last)
            let boundary = try boundary(of: request)
            let expected = """
            --\(boundary)\r
            Content-Disposition: form-data; name="name"\r
            \r
            Ada\r
            --\(boundary)\r
            Content-Disposition: form-data; name="notes"; filename="notes.txt"\r
            Content-Type: text/plain\r
            \r
            file contents
            \r
            --\(boundary)\r
            Content-Disposition: form-data; name="blob"; filename="blob.bin"\r
            Content-Type: application/x-blob\r
            \r
            streamed bytes\r
            --\(boundary)\r
            Content-Disposition: form-data; name="quote%22d"; filename="a.json"\r
            Content-Type: application/json\r
            \r
            {}\r
            --\(boundary)--\r

            """
            #expect(request.bodyText == expected)
            #expect(request.header("Content-Length") == String(request.body.count))
        }
    }

    @Test func compositeMultipartAddsTheQuery() async throws {
        try await withServer { server in
            let parts = [MultipartFormBodyPart(provider: .data(Data("1".utf8)), name: "one")]
            _ = try await provider.request(TestTarget(server.baseURL, method: .post,
                                                      task: .uploadCompositeMultipart(parts, urlParameters: ["album": "x y"])))
            let request = try #require(server.requests(to: "/echo").last)
            #expect(request.rawQuery == "album=x%20y")
            #expect(request.bodyText.contains("Content-Disposition: form-data; name=\"one\"\r\n\r\n1\r\n"))
        }
    }

    @Test func aLargeBodyIsStreamedFromDiskAndArrivesWhole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("large.bin")
        let bytes = LoopbackServer.bytes(count: 12_000_000, seed: 5)
        try bytes.write(to: file)
        try await withServer { server in
            let parts = [
                MultipartFormBodyPart(provider: .data(Data("meta".utf8)), name: "meta"),
                MultipartFormBodyPart(provider: .file(file), name: "file", mimeType: "application/octet-stream"),
            ]
            _ = try await provider.request(TestTarget(server.baseURL, method: .post, task: .uploadMultipart(parts)))
            let request = try #require(server.requests(to: "/echo").last)
            let boundary = try boundary(of: request)
            let header = Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"large.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            let start = try #require(request.body.range(of: header)).upperBound
            let received = request.body.subdata(in: start..<start + bytes.count)
            #expect(SHA256.hex(received) == SHA256.hex(bytes))
            #expect(request.body.suffix(boundary.count + 8) == Data("\r\n--\(boundary)--\r\n".utf8))
        }
    }

    @Test func theEncoderChoosesMemoryOrDiskByThreshold() throws {
        let part = MultipartFormBodyPart(provider: .data(Data(repeating: 7, count: 100)), name: "x")
        let small = MultipartFormData(parts: [part], boundary: "b", memoryThreshold: 1000)
        guard case .data(let data) = try small.encode() else {
            Issue.record("a body under the threshold should be in memory")
            return
        }
        #expect(UInt64(data.count) == (try small.contentLength()))

        let large = MultipartFormData(parts: [part], boundary: "b", memoryThreshold: 10)
        guard case .temporaryFile(let url, let length) = try large.encode() else {
            Issue.record("a body over the threshold should be on disk")
            return
        }
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try Data(contentsOf: url) == data)
        #expect(length == UInt64(data.count))
    }

    @Test func aMissingFileIsAClearBuildError() async throws {
        try await withServer { server in
            let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).bin")
            let parts = [MultipartFormBodyPart(provider: .file(missing), name: "file")]
            let error = await #expect(throws: NetworkError.self) {
                try await provider.request(TestTarget(server.baseURL, method: .post, task: .uploadMultipart(parts)))
            }
            guard case .requestBuildFailed = error else {
                Issue.record("expected requestBuildFailed, got \(String(describing: error))")
                return
            }
            #expect("\(error!)".contains(missing.path))
            #expect(server.hits("/echo") == 0)
        }
    }

    @Test func aStreamShorterThanDeclaredIsAClearBuildError() throws {
        let part = MultipartFormBodyPart(provider: .stream({ InputStream(data: Data("abc".utf8)) }, length: 10), name: "short")
        #expect(throws: RequestBuildFailure.self) { try MultipartFormData(parts: [part]).encode() }
    }
}
