import Foundation
import NIOCore

/// When a transmission last sent or received anything, so an idle time-out
/// can fire; written by the transfer, read by the watchdog.
final class Activity: @unchecked Sendable {
    private let lock = NSLock()
    private var lastActivity = NIODeadline.now().uptimeNanoseconds

    /// Records that bytes moved just now.
    func touch() {
        let now = NIODeadline.now().uptimeNanoseconds
        lock.withLock { lastActivity = now }
    }

    /// Returns when nothing has moved for `seconds` by throwing
    /// ``IdleTimeout``; throws `CancellationError` when cancelled first.
    func expire(afterIdle seconds: TimeInterval) async throws -> Never {
        let limit = UInt64(max(0.001, seconds) * 1_000_000_000)
        while true {
            let idle = NIODeadline.now().uptimeNanoseconds &- lock.withLock { lastActivity }
            if idle >= limit { throw IdleTimeout(seconds: seconds) }
            try await Task.sleep(nanoseconds: limit - idle)
        }
    }
}

/// A request was idle for longer than its time-out.
struct IdleTimeout: Error, CustomStringConvertible {
    let seconds: TimeInterval

    var description: String {
        "nothing was sent or received for \(seconds) s; raise the target's timeout if the server is slow"
    }
}

/// Runs a transmission under an idle time-out (whole or fractional seconds);
/// AsyncHTTPClient only offers a deadline for the whole request, which would
/// cut off a long download that is still making progress.
enum Watchdog {
    static func run<Value: Sendable>(
        idleTimeout: TimeInterval,
        _ body: @escaping @Sendable (Activity) async throws -> Value
    ) async throws -> Value {
        let activity = Activity()
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await body(activity) }
            group.addTask { try await activity.expire(afterIdle: idleTimeout) }
            defer { group.cancelAll() }
            // The first child to finish decides: the transfer's value, or the
            // watchdog's time-out (which cancels the transfer).
            while let value = try await group.next() {
                if let value { return value }
            }
            throw CancellationError()
        }
    }
}
