import Foundation

/// Threads of the test servers' own, so that a server answers while the
/// tests it serves keep Swift's cooperative thread pool busy.
///
/// A full test run starts every test at once, and the cooperative pool has a
/// thread per core. A server whose tasks queued on that pool answered only
/// after every job queued before its own: on a slow machine a request waited
/// longer than its 60-second time-out for a server that had nothing else to
/// do. On threads of their own the servers get their share of the cores from
/// the kernel, as a server in another process would.
final class LoopbackExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = LoopbackExecutor(threads: 4)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { self.run() }
            thread.name = "loopback-server-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty {
                condition.wait()
            }
            // A plain array: removing the first job copies the rest, which
            // for test servers' queues costs nothing the suite's time shows.
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }

    /// A task that runs `operation`, and the tasks it starts in groups, on
    /// these threads.
    static func task(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: shared, operation: operation)
    }
}
