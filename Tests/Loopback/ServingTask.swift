/// The task that serves a listener's connections, and the signal that the
/// listener has handed on every connection it accepted.
///
/// A connection NIO accepted is an `NIOAsyncChannel` that must be run with
/// `executeThenClose`: one dropped unused stops the process ("Deinited
/// NIOAsyncWriter without calling finish()"). Cancelling the serving task
/// while the listener still held accepted connections dropped them (once,
/// in a test run under the thread sanitizer, a server shut down as a client
/// opened another connection). So a server stops in order: it closes its
/// listening channel, waits here until the listener has handed on what it
/// held (its sequence ends once the channel is closed), and only then
/// cancels the connections' tasks.
struct ServingTask: Sendable {
    private let task: Task<Void, Never>
    private let drained: AsyncStream<Void>

    /// Runs `serve`, which gets a callback to call once the listener's
    /// sequence has ended.
    init(_ serve: @escaping @Sendable (_ listenerEnded: @escaping @Sendable () -> Void) async -> Void) {
        let (drained, ended) = AsyncStream<Void>.makeStream()
        self.drained = drained
        task = LoopbackExecutor.task {
            await serve { ended.finish() }
            ended.finish()
        }
    }

    /// After the listening channel was closed: waits for the listener to
    /// hand on every accepted connection, then ends the connections' tasks.
    func stop() async {
        for await _ in drained {}
        task.cancel()
        await task.value
    }
}
