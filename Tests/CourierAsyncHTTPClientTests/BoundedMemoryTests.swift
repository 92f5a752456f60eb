import Courier
import CourierTestSupport
import Foundation
import Testing

/// The faults that are heavy or timed, one at a time: bodies that never end
/// and bodies that decompress a thousandfold stop at their limit with bounded
/// memory (each one's growth is its own, though the resident memory is the
/// process's), and a trickle is never starved of CPU by a bomb beside it.
@Suite(.serialized) struct BoundedMemoryTests {
    /// How much a bounded fault may add to the resident memory, in MiB. An
    /// unbounded one never stops: it grows by gigabytes until the test's
    /// deadline. URLSession gets more room: libcurl reads ahead of Foundation's
    /// delegate queue, and under the thread sanitizer that queue is several
    /// times slower.
    static func growthLimit(_ kind: TransportKind) -> Int {
        kind == .urlSession ? 1024 : 256
    }

    /// Streamed: a progress handler makes the transfer stage read the body
    /// chunk by chunk; without one, a transport may collect it whole.
    @Test(arguments: TransportKind.networked, [false, true])
    func anEndlessBodyStopsAtTheMemoryLimitInBoundedMemory(kind: TransportKind, streamed: Bool) async throws {
        let transfer = TransferConfiguration(limits: .init(maximumBodySize: 8 << 20))
        let (error, growth) = try await measured {
            try await TransportConformanceTests().faultOutcome(of: .endlessChunked, on: kind, transfer: transfer,
                                                          progress: progress(streamed: streamed))
        }
        guard case .responseTooLarge(let limit) = error, limit == ResponseTooLarge(limit: .memory, bytes: 8 << 20) else {
            Issue.record("expected responseTooLarge at 8 MiB, got \(String(describing: error))")
            return
        }
        #expect(growth < Self.growthLimit(kind), "the resident memory grew by \(growth) MiB")
        #expect("\(limit)".contains("maximumBodySize"))
    }

    /// 1 GB of zeros in about 1 MB, decoded by AsyncHTTPClient: its client
    /// stops inflating at the transport's limit.
    @Test(arguments: [FaultyServer.Fault.gzipBomb, .deflateBomb])
    func aDecompressionBombStopsInsideTheClientInBoundedMemory(fault: FaultyServer.Fault) async throws {
        let (error, growth) = try await measured {
            try await TransportConformanceTests().faultOutcome(of: fault, on: .asyncHTTPClient, decompresses: true)
        }
        guard case .responseTooLarge(let limit) = error, limit.limit == .decompressed || limit.limit == .memory else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
        #expect(growth < Self.growthLimit(.asyncHTTPClient), "the resident memory grew by \(growth) MiB")
    }

    /// Foundation on Linux decodes compressed bodies inside libcurl, ahead of
    /// its delegate queue and without back-pressure: Courier keeps nothing
    /// past the limit and cancels the task, so the call fails with the right
    /// error, but libcurl's own backlog is not Courier's to bound (the README
    /// says to use AsyncHTTPClientTransport for servers you do not trust).
    @Test(arguments: [FaultyServer.Fault.gzipBomb, .deflateBomb])
    func aDecompressionBombOnURLSessionFailsAtTheLimit(fault: FaultyServer.Fault) async throws {
        let transfer = TransferConfiguration(limits: .init(maximumBodySize: 16 << 20))
        let error = try await TransportConformanceTests().faultOutcome(of: fault, on: .urlSession, transfer: transfer)
        guard case .responseTooLarge(let limit) = error, limit == ResponseTooLarge(limit: .memory, bytes: 16 << 20) else {
            Issue.record("expected responseTooLarge at 16 MiB, got \(String(describing: error))")
            return
        }
    }

    /// A byte every 50 ms keeps the idle time-out (5 s, generous for a loaded
    /// machine) from firing; the deadline ends it.
    @Test(arguments: TransportKind.networked)
    func aTrickleBelowTheIdleTimeOutEndsAtTheDeadline(kind: TransportKind) async throws {
        let transfer = TransferConfiguration(timeout: 5, deadline: 6)
        let error = try await TransportConformanceTests().faultOutcome(of: .trickle, on: kind, transfer: transfer)
        guard case .timedOut(let reason as TransferTimeout) = error, reason == .deadline(6) else {
            Issue.record("expected the 6 s deadline, got \(String(describing: error))")
            return
        }
    }

    /// Runs `body` and returns its result with how far the resident memory
    /// rose above where it started, in MiB.
    private func measured<T>(_ body: () async throws -> T) async throws -> (T, Int) {
        let measured = try await PeakMemory.measure(body)
        return (measured.result, measured.growth)
    }
}
