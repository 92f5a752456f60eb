@testable import Courier
import Testing

/// The wait before each reconnection, as a pure function of the server's
/// `retry` and the reconnections in a row so far.
@Suite struct ServerSentEventReconnectionPolicyTests {
    /// `retry: 0` asks for no wait at all; the floor keeps a second.
    @Test func theServersRetryIsHeldToTheFloor() {
        let policy = ServerSentEventReconnection()
        #expect(policy.minimumDelay == 1)
        #expect(policy.wait(serverRetry: 0, quickReconnections: 1) == 1)
        #expect(policy.wait(serverRetry: 2_500, quickReconnections: 1) == 2.5)
        #expect(policy.wait(serverRetry: nil, quickReconnections: 1) == 3)
    }

    /// A server that closes every connection after one event: each quick
    /// reconnection in a row doubles the wait, up to the maximum.
    @Test func quickReconnectionsInARowBackOffToTheMaximum() {
        let policy = ServerSentEventReconnection(delay: 1, minimumDelay: 1, maximumDelay: 60)
        let waits = (1...8).map { policy.wait(serverRetry: 0, quickReconnections: $0) }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60])
        #expect(policy.wait(serverRetry: 0, quickReconnections: 10_000) == 60)
    }
}
