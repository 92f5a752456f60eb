// The code of Core/Courier.docc/ChoosingATransport.md.

import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite struct ChoosingATransportSnippets {
    @Test func aURLSessionTransportWithItsOwnConfiguration() async throws {
        try await withServer { server in
            server.route("/status") { _ in .text("up") }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 4
            let transport = URLSessionTransport(sessionConfiguration: configuration)
            let provider = Provider<API>(transport: transport)
            let response = try await provider.request(API(baseURL: server.baseURL, path: "/status"))
            #expect(response.bodyText == "up")
        }
    }

    @Test func anAsyncHTTPClientTransportIsShutDownWhenDone() async throws {
        try await withServer { server in
            server.route("/status") { _ in .text("up") }
            let baseURL = server.baseURL
            let transport = AsyncHTTPClientTransport()          // owns its HTTPClient
            let provider = Provider<API>(transport: transport)
            do {
                let response = try await provider.request(API(baseURL: baseURL, path: "/status"))
                print(response.statusCode)
            } catch {
                print(error)
            }
            try await transport.shutdown()                      // when you are done
            #expect(server.hits("/status") == 1)
        }
    }

    @Test func bodiesAsTheServerSentThem() async throws {
        let transport = AsyncHTTPClientTransport()
        let provider = Provider<API>(transport: transport, transfer: TransferConfiguration(decodesContent: false))
        #expect(!provider.transfer.decodesContent)
        try await transport.shutdown()
    }
}

@Suite struct HTTPSSnippets {
    @Test func aPrivateRootAndAPinOnTheAsyncHTTPClientTransport() async throws {
        let companyRootPEM = TestCertificates.rootPEM
        let companyRootDER = TestCertificates.rootDER
        let trust = try ServerTrust.system
            .trusting(rootCertificatePEM: companyRootPEM)
            .pinning("api.example.com", to: .certificate(companyRootDER))
        let transport = AsyncHTTPClientTransport(configuration: .init(serverTrust: trust))
        do {
            try await withServer(tls: LoopbackTLS()) { server in
                server.route("/status") { _ in .text("up") }
                let provider = Provider<API>(transport: transport)
                let response = try await provider.request(API(baseURL: server.baseURL, path: "/status"))
                #expect(response.bodyText == "up")
            }
        } catch {
            try await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
        #expect(trust.pins(for: "API.example.com") == [.certificate(companyRootDER)])
    }
}
