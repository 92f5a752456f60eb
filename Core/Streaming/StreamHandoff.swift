import Foundation

/// Where the transfer stage leaves a streamed call's body for the provider:
/// the body of the latest transmission, the earlier ones' stopped (a plugin
/// that replays a request after a 401 or a 503 head never reads the first
/// body, and its connection closes at once).
final class StreamHandoff: Sendable {
    private let current = Locked<StreamedBody?>(nil)
    private let callContext = Locked<RequestContext?>(nil)
    /// The stream's byte limit, or `nil` for the target's or none.
    let maximumBytes: Int64?

    init(maximumBytes: Int64?) {
        self.maximumBytes = maximumBytes
    }

    /// Keeps `body`, stopping the one before it.
    func hand(_ body: StreamedBody) {
        current.withLock { $0.replace(with: body) }?.stop()
    }

    /// Stops the body kept so far, before another transmission.
    func discard() {
        current.withLock { $0.take() }?.stop()
    }

    /// The body kept, taken out.
    func take() -> StreamedBody? {
        current.withLock { $0.take() }
    }

    /// The call's context, so a body that did not come from the transfer
    /// stage (a stub's, a cache's) still tells the plugins how it ended.
    var context: RequestContext? {
        get { callContext.current }
        set { callContext.withLock { $0 = newValue } }
    }
}

extension Optional {
    fileprivate mutating func replace(with value: Wrapped) -> Wrapped? {
        defer { self = value }
        return self
    }
}
