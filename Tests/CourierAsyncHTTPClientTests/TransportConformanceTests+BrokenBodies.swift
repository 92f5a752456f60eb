import Courier
import CourierTestSupport
import Foundation
import Testing

/// A body that breaks off after the head is named by one rule however it is
/// read: collected whole, read chunk by chunk (a progress handler), written
/// to a download, or handed to the caller as a stream.
extension TransportConformanceTests {
    /// How the call reads the body.
    enum Reading: String, CaseIterable, Sendable {
        case collected, inChunks, downloaded, streamed
    }

    /// A chunked body whose connection closes where the next chunk should
    /// be: the server announced no length, so only the missing end says the
    /// body is incomplete. It is a lost connection, never a body that
    /// arrived whole and never the client's own unnamed error.
    @Test(arguments: TransportKind.networked, Reading.allCases)
    func aChunkedBodyCutShortIsConnectionLost(kind: TransportKind, reading: Reading) async throws {
        let error = try await brokenBodyOutcome(of: .chunkedCutShort, on: kind, reading: reading)
        guard case .connectionLost = error else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
    }

    /// A chunk size that is not hexadecimal: the body cannot be read on, and
    /// is never read as the end of a whole body. AsyncHTTPClient's parser
    /// names it, so it is an invalid response; libcurl reports only that the
    /// transfer broke off, so on URLSession it is a lost connection.
    @Test(arguments: TransportKind.networked, Reading.allCases)
    func aMalformedChunkSizeIsAFailureNotAnEnd(kind: TransportKind, reading: Reading) async throws {
        let error = try await brokenBodyOutcome(of: .badChunkSize, on: kind, reading: reading)
        switch (kind, error) {
        case (.asyncHTTPClient, .invalidResponse?), (.urlSession, .connectionLost?): break
        default: Issue.record("expected \(kind == .asyncHTTPClient ? "invalidResponse" : "connectionLost"), got \(String(describing: error))")
        }
    }

    /// A body shorter than its `Content-Length` says how much came and how
    /// much was announced, however it is read.
    @Test(arguments: TransportKind.networked, Reading.allCases)
    func aShortBodySaysHowMuchCame(kind: TransportKind, reading: Reading) async throws {
        let error = try await brokenBodyOutcome(of: .closeEarly, on: kind, reading: reading)
        guard case .connectionLost(let failure as IncompleteBody) = error else {
            Issue.record("expected connectionLost(IncompleteBody), got \(String(describing: error))")
            return
        }
        #expect(failure.expected == 100_000)
        #expect(failure.received == 1_000)
    }

    /// The failure of one call to `fault`, read the way `reading` says; a
    /// download leaves no file behind.
    func brokenBodyOutcome(of fault: FaultyServer.Fault, on kind: TransportKind, reading: Reading) async throws -> NetworkError? {
        try await kind.withFaultyProvider { provider, server in
            try await withDeadline(120, "the \(fault) fault, \(reading)") { () async throws -> NetworkError? in
                let target = TestTarget(server.url(fault), path: "")
                switch reading {
                case .collected:
                    return await CourierAsyncHTTPClientTests.failure(of: target, on: provider)
                case .inChunks:
                    return await CourierAsyncHTTPClientTests.failure(of: target, on: provider, progress: { _ in })
                case .downloaded:
                    let folder = try TemporaryDirectory()
                    defer { folder.remove() }
                    let download = TestTarget(server.url(fault), path: "", task: .downloadDestination(DownloadDestinations.file(folder.file("body"))))
                    let error = await CourierAsyncHTTPClientTests.failure(of: download, on: provider)
                    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
                    return error
                case .streamed:
                    do throws(NetworkError) {
                        let response = try await provider.stream(target)
                        _ = try await response.collect(upTo: 1 << 20)
                        Issue.record("expected the stream to fail")
                        return nil
                    } catch {
                        return error
                    }
                }
            }
        }
    }
}
