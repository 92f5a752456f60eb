import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Whether and when to send a request again.

extension RetryPlugin {
    /// The seconds to wait before the next attempt, or `nil` to let the
    /// result of attempt `attempt` stand.
    func retryDelay(
        after outcome: Result<Response, NetworkError>,
        request: URLRequest,
        context: RequestContext,
        attempt: Int,
        start: Date
    ) -> TimeInterval? {
        guard attempt < configuration.maximumAttempts, !Task.isCancelled,
              mayRetry(request, context: context), request.isBodyReplayable, context.isBodyReplayable
        else { return nil }
        let delay: TimeInterval
        switch outcome {
        case .success(let response):
            guard configuration.retryableStatusCodes.contains(response.statusCode) else { return nil }
            delay = retryAfter(response) ?? backoff(beforeRetry: attempt)
        case .failure(let error):
            guard configuration.retriesError(error) else { return nil }
            delay = backoff(beforeRetry: attempt)
        }
        // A wait longer than any back-off (a Retry-After of years) is the
        // server saying "not soon": the response stands rather than the
        // call hanging, even with an infinite budget.
        let elapsed = configuration.clock.now.timeIntervalSince(start)
        guard delay.isFinite, delay <= max(configuration.maximumDelay, 0),
              elapsed + delay <= configuration.timeBudget
        else { return nil }
        return delay
    }

    /// Whether the request may be sent twice: the per-call option, then the
    /// target, then the method.
    private func mayRetry(_ request: URLRequest, context: RequestContext) -> Bool {
        if let allowed = context.options[AllowsRetry.self] { return allowed }
        if let target = context.target as? any RetryableTarget { return target.isRetryable }
        let method = request.httpMethod.map(HTTPMethod.init(rawValue:)) ?? context.target.method
        return method.isIdempotent
    }

    /// Full jitter: a random wait up to the exponential bound.
    private func backoff(beforeRetry retry: Int) -> TimeInterval {
        let bound = min(configuration.maximumDelay, configuration.initialDelay * pow(configuration.multiplier, Double(retry - 1)))
        let fraction = min(1, max(0, configuration.random()))
        return max(0, bound) * fraction
    }

    private func retryAfter(_ response: Response) -> TimeInterval? {
        guard configuration.honoursRetryAfter, let value = response.value(forHTTPHeaderField: "Retry-After") else { return nil }
        return RetryAfter.delay(from: value, now: configuration.clock.now)
    }
}
