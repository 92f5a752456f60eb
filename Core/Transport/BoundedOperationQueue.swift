#if canImport(FoundationNetworking)
import Foundation

/// An operation queue that makes whoever adds a block wait while `limit`
/// blocks are already waiting to run, until half of them have run.
///
/// FoundationNetworking hands every chunk libcurl reads to the session's
/// delegate queue with `addOperation`, from the session's own work queue and
/// without waiting. A delegate that falls behind (a loaded machine, a body
/// libcurl decodes a thousandfold) left the chunks piling up in the queue,
/// hundreds of MiB of them, before the transfer stage could count them
/// against a limit. Waiting here holds libcurl's thread instead: it reads
/// nothing more until the delegate catches up, the socket's buffers fill, and
/// TCP makes the server wait. At most `limit` chunks (16 KiB each, libcurl's
/// largest write) wait in the queue.
///
/// FoundationNetworking runs the libcurl work of every `URLSession` in the
/// process on one serial queue (`org.swift.URLSession.SharedQueue`, the
/// target of each session's work queue). So a wait here holds the transfers
/// of every session in the process, not only this transport's: that is why a
/// wait is short and never waits for a reader. Measured with two sessions,
/// the first's delegate queue holding the thread that adds its first block
/// (the response's head) for 3 s: the second session's request to nginx took 2.51 s, against
/// 0.00 s without the hold (`Benchmarks/urlsession-shared-queue`).
///
/// The delegate's own blocks never wait here: they run on this queue, and
/// could only wait for themselves. A wait lasts at most `longestWait`:
/// a block on this queue that waits for the session's work queue
/// (`URLSessionTask.cancel()` does) while that queue waits here would
/// otherwise never run. The transport moves its own cancellations off this
/// queue, and its answers to challenges (FoundationNetworking cancels the
/// task inside one), so that happens only through code that is not Courier's.
///
/// Its blocks run on a serial dispatch queue of its own, not on Dispatch's
/// global queue, where an `OperationQueue` runs them by default. The global
/// queue starts with a thread a core and adds about one a second when none
/// can run, and on Linux Swift's tasks run on those same threads: blocks that
/// wait there (a semaphore, a blocking read) or tasks that work long without
/// an `await` would leave the delegate waiting for a thread. Every chunk
/// would then hold FoundationNetworking's one work queue here for
/// `longestWait`, and `resume()` and `cancel()`, which wait for that work
/// queue, would hold their callers behind it. A serial queue gets a thread
/// when it has work, however busy the global queue is.
final class BoundedOperationQueue: OperationQueue, @unchecked Sendable {
    /// How many blocks may wait before a caller waits.
    let limit: Int
    /// The longest a caller waits before its block is queued anyway: a
    /// tenth of a second in a transport.
    let longestWait: TimeInterval
    private let condition = NSCondition()
    /// Blocks added and not yet finished; guarded by `condition`.
    private var pending = 0
    /// Where the blocks run, one at a time. Foundation's setter of
    /// `underlyingQueue` keeps the queue too, though the property is declared
    /// `unowned(unsafe)`; holding it here does not depend on that.
    private let runner: DispatchQueue

    init(limit: Int, longestWait: TimeInterval = 0.1, label: String = "Courier.BoundedOperationQueue") {
        self.limit = max(limit, 2)
        self.longestWait = longestWait
        self.runner = DispatchQueue(label: label)
        super.init()
        underlyingQueue = runner
    }

    override func addOperation(_ block: @Sendable @escaping () -> Void) {
        condition.lock()
        if pending >= limit, OperationQueue.current !== self {
            let deadline = Date(timeIntervalSinceNow: longestWait)
            while pending > limit / 2, condition.wait(until: deadline) {}
        }
        pending += 1
        condition.unlock()
        super.addOperation { [self] in
            block()
            condition.lock()
            pending -= 1
            if pending == limit / 2 { condition.broadcast() }
            condition.unlock()
        }
    }

    /// Blocks added and not yet finished, for tests.
    var pendingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return pending
    }
}
#endif
