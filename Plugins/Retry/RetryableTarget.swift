import Courier

/// A target that says whether its requests may be sent again.
///
/// ``RetryPlugin`` retries idempotent methods (GET, HEAD, PUT, DELETE,
/// OPTIONS, TRACE, QUERY) by itself. A POST or PATCH is retried only when its target
/// says so, because sending it twice may do the thing twice:
///
/// ```swift
/// extension PaymentsAPI: RetryableTarget {
///     // Safe: the server deduplicates by the Idempotency-Key header.
///     var isRetryable: Bool { true }
/// }
/// ```
public protocol RetryableTarget: TargetType {
    /// Whether a failed request to this target may be sent again, whatever
    /// its method. `false` turns retrying off even for a GET.
    var isRetryable: Bool { get }
}

extension RetryableTarget {
    /// Retryable: a target that conforms opts in, unless it says otherwise.
    public var isRetryable: Bool { true }
}
