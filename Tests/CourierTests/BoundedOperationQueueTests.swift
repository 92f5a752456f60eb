#if canImport(FoundationNetworking)
@testable import Courier
import CourierTestSupport
import Foundation
import Testing

/// The delegate queue of `URLSessionTransport` on Linux makes whoever adds
/// work wait while it is full, so libcurl, which adds a block for every chunk
/// it reads, stops reading until the delegate catches up.
@Suite struct BoundedOperationQueueTests {
    /// A queue whose first block waits for `gate`, so nothing after it runs
    /// until the test opens it.
    private func gatedQueue(limit: Int) -> (queue: BoundedOperationQueue, gate: DispatchSemaphore) {
        // A wait longer than any run, so only the queue draining ends it.
        let queue = BoundedOperationQueue(limit: limit, longestWait: 3600)
        queue.maxConcurrentOperationCount = 1
        let gate = DispatchSemaphore(value: 0)
        queue.addOperation { gate.wait() }
        return (queue, gate)
    }

    /// The block past the limit is queued only once half the queue has run.
    /// Without the wait it would be queued at once, before the gate opens
    /// (the gate opens only after the adder has started adding), when no
    /// block had run.
    @Test(.timeLimit(.minutes(1)))
    func anAdderPastTheLimitWaitsUntilHalfTheQueueHasRun() {
        let limit = 8
        let (queue, gate) = gatedQueue(limit: limit)
        let ran = Locked(0)
        for _ in 1..<limit { queue.addOperation { ran.withLock { $0 += 1 } } }
        #expect(queue.pendingCount == limit)
        let adding = DispatchSemaphore(value: 0)
        let added = DispatchSemaphore(value: 0)
        let ranWhenQueued = Locked(-1)
        Thread.detachNewThread {
            adding.signal()
            queue.addOperation { ran.withLock { $0 += 1 } }
            ranWhenQueued.withLock { $0 = ran.current }
            added.signal()
        }
        adding.wait()
        gate.signal()
        added.wait()
        // The gate's block and limit / 2 - 1 others: pending was limit / 2.
        #expect(ranWhenQueued.current >= limit / 2 - 1)
        queue.waitUntilAllOperationsAreFinished()
        #expect(ran.current == limit)
        #expect(queue.pendingCount == 0)
    }

    /// A delegate method that adds to its own queue (a cancellation inside
    /// Foundation does) would wait for itself: it never waits.
    @Test(.timeLimit(.minutes(1)))
    func theQueueNeverWaitsForItself() {
        let limit = 4
        let queue = BoundedOperationQueue(limit: limit, longestWait: 3600)
        queue.maxConcurrentOperationCount = 1
        let ran = Locked(0)
        queue.addOperation {
            for _ in 0..<(limit * 4) { queue.addOperation { ran.withLock { $0 += 1 } } }
        }
        queue.waitUntilAllOperationsAreFinished()
        #expect(ran.current == limit * 4)
    }

    /// The transport's delegate queue runs its blocks while the app's own
    /// blocks hold every thread of Dispatch's global queue (here each waits on
    /// a semaphore), because they run on a dispatch queue of its own. On the
    /// global queue, where an `OperationQueue` runs its blocks by default,
    /// they would wait for the app's; FoundationNetworking's one work queue,
    /// which adds every chunk here, would then wait `longestWait` at each
    /// chunk, and `resume()` and `cancel()`, which wait for that work queue,
    /// behind it. In a process of its own, since holding the global queue
    /// holds the rest of a run; and with a blocking wait, since Swift's tasks
    /// run on the global queue's threads on Linux and none could resume.
    @Test(.timeLimit(.minutes(1)))
    func theTransportsDelegateQueueRunsWhileTheGlobalQueueIsHeld() async throws {
        try await MeasuredAlone.run(suite: "BoundedOperationQueueTests", case: "held") {
            let transport = URLSessionTransport()
            let (ran, beforeTheDeadline) = whileDispatchsGlobalQueueIsHeld(seconds: 20) { deadline in
                let ran = DispatchSemaphore(value: 0)
                transport.session.delegateQueue.addOperation { ran.signal() }
                return ran.wait(timeout: deadline) == .success
            }
            let ranWhileHeld = ran && beforeTheDeadline
            MeasuredAlone.report("the delegate's block ran while the global queue was held: \(ranWhileHeld)")
            #expect(ranWhileHeld, "the delegate's block ran only once the app's blocks let go")
        }
    }

    /// A queue that never drains holds its adder for `longestWait`, then
    /// takes the block anyway: no wait can last for ever.
    @Test func aWaitEndsAtTheLongestWait() {
        let queue = BoundedOperationQueue(limit: 2, longestWait: 0.05)
        queue.maxConcurrentOperationCount = 1
        let gate = DispatchSemaphore(value: 0)
        queue.addOperation { gate.wait() }
        for _ in 0..<4 { queue.addOperation {} }
        #expect(queue.pendingCount == 5)
        gate.signal()
        queue.waitUntilAllOperationsAreFinished()
    }
}
#endif
