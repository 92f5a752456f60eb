import AsyncHTTPClient
import Courier
import NIOCore
import NIOPosix

/// Chooses the event loop each request's delegate runs on, so that it is the
/// loop of the connection that carries the request.
///
/// AsyncHTTPClient runs a delegate on its task's event loop and the
/// connection on the channel's; when the two differ, every callback (the
/// head, each body part, the end) crosses from one thread to the other, which
/// costs a wake-up each. Asked for no loop in particular, it picks the next
/// loop of the group in turn from a thread outside it, so with one connection
/// on a two-loop group half of all requests crossed over.
///
/// The connection pool leases an idle connection on the preferred loop before
/// any other, and opens new connections there; so the choice here is the loop
/// where this transport has the fewest requests under way (the first of them
/// on a tie), or the caller's own loop when it runs on one of the group's. A
/// sequence of requests then stays on one loop and one connection, and
/// concurrent requests spread over the loops evenly. It is only a preference:
/// the pool's connection limits and idle connections elsewhere still apply.
final class EventLoopChoice: Sendable {
    let loops: [any EventLoop]
    /// Requests under way on each loop of `loops`.
    private let underway: Locked<[Int]>

    init(group: any EventLoopGroup) {
        loops = Array(group.makeIterator())
        underway = Locked(Array(repeating: 0, count: loops.count))
    }

    /// The preference for the next request, and the slot to hand back with
    /// ``release(_:)`` when it ends (`nil` when there is nothing to choose).
    func take() -> (preference: HTTPClient.EventLoopPreference, slot: Int?) {
        guard loops.count > 1 else { return (.indifferent, nil) }
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        let own = current.flatMap { current in loops.firstIndex { $0 === current } }
        let slot = underway.withLock { counts in
            var chosen = own ?? 0
            if own == nil {
                for index in 1..<counts.count where counts[index] < counts[chosen] { chosen = index }
            }
            counts[chosen] += 1
            return chosen
        }
        return (.delegate(on: loops[slot]), slot)
    }

    /// Ends the request that took `slot`.
    func release(_ slot: Int) {
        underway.withLock { $0[slot] -= 1 }
    }

    /// Requests under way on each loop, in the order of ``loops`` (for tests).
    var requestsUnderway: [Int] { underway.current }
}
