import Dispatch
import Foundation

/// Runs `body` while every thread of Dispatch's global queue is held, and
/// says whether it returned before the hold ended: how a test shows that
/// something does not need those threads.
///
/// The hold is blocks that wait on a semaphore until `seconds` have passed
/// or `body` has returned. There are more of them than the queue gets
/// threads in that time: it starts with one a core and adds about one a
/// second when none can run. On Linux Swift's tasks run on the same threads,
/// so no task resumes during the hold: call this only in a process of its
/// own (``MeasuredAlone``), and wait inside `body` with a blocking wait
/// bounded by the deadline it is given.
///
/// ```swift
/// let (ran, inTime) = whileDispatchsGlobalQueueIsHeld(seconds: 20) { deadline in
///     let done = DispatchSemaphore(value: 0)
///     queue.async { done.signal() }
///     return done.wait(timeout: deadline) == .success
/// }
/// ```
public func whileDispatchsGlobalQueueIsHeld<T>(
    seconds: Int,
    _ body: (_ deadline: DispatchTime) throws -> T
) rethrows -> (result: T, beforeTheDeadline: Bool) {
    let release = DispatchSemaphore(value: 0)
    let deadline = DispatchTime.now() + .seconds(seconds)
    let holders = ProcessInfo.processInfo.activeProcessorCount + 64
    for _ in 0..<holders {
        DispatchQueue.global().async { _ = release.wait(timeout: deadline) }
    }
    defer { for _ in 0..<holders { release.signal() } }
    let result = try body(deadline)
    return (result, DispatchTime.now() < deadline)
}
