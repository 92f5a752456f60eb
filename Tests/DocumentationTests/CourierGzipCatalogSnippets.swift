// The code of Plugins/Gzip/CourierGzip.docc/CourierGzip.md.

import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import CourierGzip

/// A log file sent to the server.
struct LogUpload: TargetType {
    let baseURL: URL
    let log: Data
    var path: String { "/logs" }
    var method: HTTPMethod { .post }
    var task: RequestTask { .requestData(log) }
    var headers: [String: String]? { ["Content-Type": "text/plain"] }
    var validationType: ValidationType { .successCodes }
}

extension LogUpload: GzipRequestCompressible {}

@Suite struct CourierGzipCatalogSnippets {
    @Test func anOptedInBodyIsSentCompressed() async throws {
        try await withServer { server in
            server.route("/logs") { request in .json(request.echoJSON()) }
            let baseURL = server.baseURL
            let bigLog = Data(String(repeating: "GET /index.html 200\n", count: 500).utf8)
            let provider = Provider<LogUpload>(plugins: [GzipPlugin()])
            let response = try await provider.request(LogUpload(baseURL: baseURL, log: bigLog))
            let echo = try Echo(response)
            #expect(echo.header("Content-Encoding") == "gzip")
            #expect(echo.bodyLength < bigLog.count)
            #expect(try Gzip.decompress(echo.bodyData) == bigLog)
        }
    }

    @Test func aCompressedResponseIsDecodedUnderItsLimit() async throws {
        try await withServer { server in
            let packedBody = try Gzip.compress(Data("hello".utf8))
            server.route("/packed") { _ in
                LoopbackResponse(headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], body: .data(packedBody))
            }
            // With decoding off, bodies arrive as the server sent them.
            let transport = AsyncHTTPClientTransport()
            let provider = Provider<API>(transport: transport, plugins: [GzipPlugin()],
                                         transfer: TransferConfiguration(decodesContent: false))
            let result: Result<Response, NetworkError>
            do throws(NetworkError) {
                result = .success(try await provider.request(API(baseURL: server.baseURL, path: "/packed")))
            } catch {
                result = .failure(error)
            }
            try await transport.shutdown()
            let response = try result.get()
            #expect(response.bodyText == "hello")
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
        }
    }

    @Test func theOneShotFunctionsRoundTrip() throws {
        let packed = try Gzip.compress(Data(repeating: 65, count: 10_000))
        let unpacked = try Gzip.decompress(packed, limit: 1 << 20)
        #expect(Gzip.isGzipped(packed))
        #expect(packed.count < 10_000)
        #expect(unpacked == Data(repeating: 65, count: 10_000))
        #expect(throws: Gzip.Error.sizeLimitExceeded(limit: 1_000)) {
            try Gzip.decompress(packed, limit: 1_000)
        }
    }
}
