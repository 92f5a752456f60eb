import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request again after a transient failure — a time-out, a lost
/// connection, 408, 429, 500, 502, 503 or 504 — waiting a little longer each
/// time.
///
/// ```swift
/// let retry = RetryPlugin(.init(maximumAttempts: 4, timeBudget: 20))
/// let provider = Provider<API>(plugins: [LoggingPlugin(), retry])
/// ```
///
/// It retries only what is safe to send twice: idempotent methods, or any
/// method of a ``RetryableTarget`` that says so (or a call that sets
/// `AllowsRetry`), and never a body that cannot be replayed (an
/// `httpBodyStream`, or a one-shot `RequestBodyStream` the transport sends as
/// it reads it: the response or error stands). It
/// honours `Retry-After`, stops at `Configuration/maximumAttempts` and
/// `Configuration/timeBudget` (a `Retry-After` longer than
/// `Configuration/maximumDelay` or the budget is not waited for: that
/// response stands), and when the task is cancelled during a wait, or with a
/// retryable response in hand, it ends at once with `NetworkError/cancelled`.
///
/// When retries run out, the last result stands: the last response (which
/// the target's validation may then reject) or the last error.
///
/// Plugins listed after this one run inside it, once per transmission; those
/// before it see the call once.
public struct RetryPlugin: Plugin {
    /// The configuration in force.
    public let configuration: Configuration

    /// Creates the plugin.
    /// - Parameter configuration: Attempts, back-off, budget and clock.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Sends the request, and again after a back-off while the result is
    /// transient and attempts, time budget and safety allow.
    /// - Returns: The last response, whatever its status.
    /// - Throws: The last transmission's `NetworkError`, or
    ///   `NetworkError/cancelled` when the task is cancelled during a wait.
    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let clock = configuration.clock
        let start = clock.now
        var attempt = 1
        while true {
            let outcome: Result<Response, NetworkError>
            do {
                outcome = .success(try await next(request))
            } catch {
                outcome = .failure(NetworkError(transportError: error))
            }
            guard let delay = retryDelay(after: outcome, request: request, context: context, attempt: attempt, start: start) else {
                // A cancelled caller does not want the failure it would have
                // waited out: it gets `.cancelled`, as during a wait.
                if Task.isCancelled, case .success(let response) = outcome,
                   configuration.retryableStatusCodes.contains(response.statusCode) {
                    throw NetworkError.cancelled
                }
                return try outcome.get()
            }
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw NetworkError.cancelled
            }
            if Task.isCancelled { throw NetworkError.cancelled }
            attempt += 1
            context.record(.init(.retry, ["attempt": String(attempt), "reason": Self.reason(outcome)]))
        }
    }

    /// Why a result is retried, in a few words: the status code, or the
    /// error's case.
    private static func reason(_ outcome: Result<Response, NetworkError>) -> String {
        switch outcome {
        case .success(let response): String(response.statusCode)
        case .failure(let error): error.caseName
        }
    }
}
