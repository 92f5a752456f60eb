@testable import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What `URLSessionTransport` bounds unread, since URLSession cannot wait for
/// a reader: a body nothing else bounds, and no other.
@Suite struct URLSessionUnreadBoundTests {
    /// A body counted against its size limit as it arrives (one kept in memory
    /// and read with a progress handler) is bounded by that count; the unread
    /// bound does not fail it as well. The reader here reads nothing until the
    /// whole 8 MB has arrived, 30 times the unread bound, and then gets all of
    /// it. (Applied to every body not collected whole, the bound stopped this
    /// transfer.)
    @Test func aBodyCountedAsItArrivesIsNotFailedByTheUnreadBound() async throws {
        try await withServer { server in
            let transport = URLSessionTransport(maximumUnreadBytes: 256 << 10)
            let control = TransferControl(bodyLimit: ResponseTooLarge(limit: .memory, bytes: 16 << 20), progress: nil, readsInChunks: true)
            let request = TransportRequest(urlRequest: URLRequest(url: server.baseURL.appendingPathComponent("bytes/8000000")),
                                           collectsBody: false, handsBodyToCaller: false, control: control)
            let response = try await transport.send(request)
            guard case .stream(let stream) = response.body.storage else {
                Issue.record("expected a body streamed as it arrives")
                return
            }
            try await waitUntil("the whole body has arrived", within: 60) { stream.hasEnded }
            #expect(!control.isAborted)
            #expect(try await response.body.collect(upTo: 16 << 20).count == 8_000_000)
        }
    }
}
