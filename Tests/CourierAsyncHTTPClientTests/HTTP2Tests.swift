import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
import Testing

/// HTTP/2 over TLS on the AsyncHTTPClient transport: negotiated by ALPN, and
/// concurrent requests multiplexed on one connection.
@Suite struct HTTP2Tests {
    static let trust = ServerTrust.system.trusting(rootCertificate: TestCertificates.rootDER)

    @Test func concurrentRequestsShareOneHTTP2Connection() async throws {
        try await TransportKind.asyncHTTPClient.withProvider(tls: LoopbackTLS(offersHTTP2: true), serverTrust: Self.trust) { provider, server in
            // The first request opens the connection; the others arrive while
            // each is held for 200 ms, so they overlap on it.
            _ = try await provider.request(TestTarget(server.baseURL))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        try await provider.request(TestTarget(server.baseURL, path: "/delay/200", task: .requestParameters(
                            parameters: ["n": index], encoding: URLEncoding.queryString))).statusCode
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 24))
            let requests = server.requests
            #expect(requests.count == 25)
            #expect(requests.allSatisfy { $0.httpMajorVersion == 2 })
            #expect(Set(requests.map(\.connectionID)).count == 1)
        }
    }

    @Test func aServerWithoutHTTP2GetsHTTP1() async throws {
        try await TransportKind.asyncHTTPClient.withProvider(tls: LoopbackTLS(offersHTTP2: false), serverTrust: Self.trust) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL, method: .post, task: .requestData(Data("hello".utf8))))
            #expect(try Echo(response).bodyText == "hello")
            #expect(server.requests.map(\.httpMajorVersion) == [1])
        }
    }
}
