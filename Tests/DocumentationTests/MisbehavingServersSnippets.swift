// The code of Core/Courier.docc/MisbehavingServers.md, run against the
// loopback server and the server that misbehaves on demand.

import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

struct Report: TargetType {
    let baseURL: URL
    var path: String { "/report" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .requestPlain }
    var headers: [String: String]? { nil }
    var timeout: TimeInterval? { 60 }               // nothing moves for a minute: give up
    var deadline: TimeInterval? { 300 }             // the whole transfer: at most 5 minutes
    var maximumResponseSize: Int64? { 1 << 20 }     // at most 1 MiB kept in memory
}

struct Invoice: TargetType {
    let baseURL: URL
    let destination: URL
    var path: String { "/invoice.pdf" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .downloadDestination(DownloadDestinations.file(destination)) }
    var headers: [String: String]? { nil }
    var validationType: ValidationType { .successCodes }
}

func explain(_ error: NetworkError) -> String {
    switch error {
    case .timedOut(let reason as TransferTimeout):
        switch reason {
        case .idle(let seconds): return "nothing was sent or received for \(seconds) s"
        case .deadline(let seconds): return "the transfer took longer than \(seconds) s"
        case .betweenEvents(let seconds): return "no event came for \(seconds) s"
        }
    case .responseTooLarge(let failure):
        return "the body passed its \(failure.bytes)-byte limit"
    case .connectionLost(let incomplete as IncompleteBody):
        return "the body broke off after \(incomplete.received) of \(incomplete.expected) bytes"
    case .redirectRefused(.insecureDowngrade):
        return "a redirect from https to http was refused"
    case .redirectRefused(let failure):
        return "a redirect was refused: \(failure)"
    case .invalidResponse:
        return "the answer is not HTTP"
    default:
        return "\(error)"
    }
}

/// The error `provider` fails with for `target`, or `nil` when it succeeds.
private func callError<Target: TargetType>(of target: Target, on provider: Provider<Target>) async -> NetworkError? {
    do throws(NetworkError) {
        _ = try await provider.request(target)
        return nil
    } catch {
        return error
    }
}

@Suite struct MisbehavingServersSnippets {
    @Test func theTransferConfigurationIsTheProvidersRules() {
        var transfer = TransferConfiguration()
        transfer.redirects.maximum = 5
        transfer.deadline = 120                       // seconds for one transfer, redirects included
        transfer.limits.maximumBodySize = 8 << 20     // per target: `maximumResponseSize`
        let provider = Provider<API>(transfer: transfer)
        #expect(provider.transfer.redirects.maximum == 5)
        #expect(provider.transfer.deadline == 120)
        #expect(provider.transfer.limits.maximumBodySize == 8 << 20)
        #expect(provider.transfer.timeout == 60)
        #expect(provider.transfer.redirects.allowsInsecureDowngrade == false)
    }

    @Test func aStallEndsAtTheIdleTimeOut() async throws {
        try await withFaultyServer { faulty in
            var transfer = TransferConfiguration()
            transfer.timeout = 0.5
            let provider = Provider<API>(transfer: transfer)
            let error = try #require(await callError(of: API(baseURL: faulty.url(.stallAfterHead)), on: provider))
            guard case .timedOut(let reason as TransferTimeout) = error else {
                Issue.record("expected timedOut(TransferTimeout), got \(error)")
                return
            }
            #expect(reason == .idle(0.5))
            #expect(explain(error) == "nothing was sent or received for 0.5 s")
        }
    }

    @Test func aTrickleEndsAtTheDeadline() async throws {
        try await withFaultyServer { faulty in
            let provider = Provider<API>(transfer: TransferConfiguration(timeout: 5, deadline: 0.5))
            let error = try #require(await callError(of: API(baseURL: faulty.url(.trickle)), on: provider))
            guard case .timedOut(let reason as TransferTimeout) = error else {
                Issue.record("expected timedOut(TransferTimeout), got \(error)")
                return
            }
            #expect(reason == .deadline(0.5))
            #expect(explain(error) == "the transfer took longer than 0.5 s")
        }
    }

    @Test func aBodyPastTheTargetsLimitIsStopped() async throws {
        try await withServer { server in
            server.route("/report") { _ in LoopbackResponse(body: .generated(count: 2 << 20, seed: 1)) }
            let report = Report(baseURL: server.baseURL)
            #expect(report.timeout == 60)
            #expect(report.deadline == 300)
            let error = try #require(await callError(of: report, on: Provider<Report>()))
            guard case .responseTooLarge(let failure) = error else {
                Issue.record("expected responseTooLarge, got \(error)")
                return
            }
            #expect(failure == ResponseTooLarge(limit: .memory, bytes: 1 << 20))
            #expect(explain(error) == "the body passed its 1048576-byte limit")
        }
    }

    @Test func aBodyShorterThanItsContentLengthIsConnectionLost() async throws {
        try await withFaultyServer { faulty in
            let error = try #require(await callError(of: API(baseURL: faulty.url(.closeEarly)), on: Provider<API>()))
            guard case .connectionLost(let incomplete as IncompleteBody) = error else {
                Issue.record("expected connectionLost(IncompleteBody), got \(error)")
                return
            }
            #expect(incomplete.expected == 100_000)
            #expect(incomplete.received < incomplete.expected)
            #expect(explain(error).hasPrefix("the body broke off after"))
        }
    }

    @Test func aStatusLineThatIsNotHTTPIsAnInvalidResponse() async throws {
        try await withFaultyServer { faulty in
            let error = try #require(await callError(of: API(baseURL: faulty.url(.malformedStatusLine)), on: Provider<API>()))
            #expect(explain(error) == "the answer is not HTTP")
        }
    }

    @Test func aRedirectLoopStopsAtTheLimit() async throws {
        try await withServer { server in
            server.route("/loop") { _ in LoopbackResponse(status: 302, headers: [("Location", "/loop")]) }
            var transfer = TransferConfiguration()
            transfer.redirects.maximum = 5
            let provider = Provider<API>(transfer: transfer)
            let error = try #require(await callError(of: API(baseURL: server.baseURL, path: "/loop"), on: provider))
            guard case .redirectRefused(.tooManyRedirects(5)) = error else {
                Issue.record("expected tooManyRedirects(5), got \(error)")
                return
            }
            #expect(server.hits("/loop") == 6)
        }
    }

    @Test func aRedirectToAFileIsRefusedAndNothingIsRead() async throws {
        try await withServer { server in
            server.route("/to-file") { _ in LoopbackResponse(status: 302, headers: [("Location", "file:///etc/passwd")]) }
            let error = try #require(await callError(of: API(baseURL: server.baseURL, path: "/to-file"), on: Provider<API>()))
            guard case .redirectRefused(.unsupportedScheme("file")) = error else {
                Issue.record("expected unsupportedScheme(file), got \(error)")
                return
            }
            #expect(explain(error).hasPrefix("a redirect was refused"))
        }
    }

    @Test func credentialsNeverFollowARedirectToAnotherOrigin() async throws {
        try await withServer { origin in
            try await withServer { other in
                origin.route("/hop") { _ in LoopbackResponse(status: 302, headers: [("Location", other.url("/echo").absoluteString)]) }
                let provider = Provider<API>(endpointClosure: { target in
                    Provider.defaultEndpointMapping(for: target).adding(newHTTPHeaderFields: ["Authorization": "Bearer secret"])
                })
                let response = try await provider.request(API(baseURL: origin.baseURL, path: "/hop"))
                #expect(origin.requests(to: "/hop").first?.header("Authorization") == "Bearer secret")
                #expect(try Echo(response).header("Authorization") == nil)
            }
        }
    }

    @Test func anErrorStatusNeverReplacesADownloadedFile() async throws {
        try await withServer { server in
            let counter = CallCounter()
            server.route("/invoice.pdf") { _ in
                counter.next() == 1 ? .text("try again later", status: 503) : .text("the new invoice")
            }
            let folder = try TemporaryDirectory()
            defer { folder.remove() }
            let destination = folder.file("invoice.pdf")
            try Data("my copy".utf8).write(to: destination)
            let provider = Provider<Invoice>()

            let error = try #require(await callError(of: Invoice(baseURL: server.baseURL, destination: destination), on: provider))
            guard case .statusCode(let response) = error else {
                Issue.record("expected statusCode, got \(error)")
                return
            }
            #expect(response.statusCode == 503)
            #expect(response.bodyText == "try again later")
            #expect(try String(contentsOf: destination, encoding: .utf8) == "my copy")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["invoice.pdf"])

            let placed = try await provider.request(Invoice(baseURL: server.baseURL, destination: destination))
            #expect(placed.fileURL?.lastPathComponent == "invoice.pdf")
            #expect(try String(contentsOf: destination, encoding: .utf8) == "the new invoice")
        }
    }

    @Test func aDecompressionBombStopsAtTheBodyLimit() async throws {
        try await withFaultyServer { faulty in
            let transport = AsyncHTTPClientTransport()
            var transfer = TransferConfiguration()
            transfer.limits.maximumBodySize = 8 << 20
            let provider = Provider<API>(transport: transport, transfer: transfer)
            let error = await callError(of: API(baseURL: faulty.url(.gzipBomb)), on: provider)
            try await transport.shutdown()
            guard case .responseTooLarge(let failure)? = error else {
                Issue.record("expected responseTooLarge, got \(String(describing: error))")
                return
            }
            #expect(failure == ResponseTooLarge(limit: .memory, bytes: 8 << 20))
        }
    }
}
