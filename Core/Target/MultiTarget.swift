import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A target that wraps any other target, so one ``Provider`` can serve several
/// target types.
///
/// ```swift
/// let provider = Provider<MultiTarget>()
/// let user = try await provider.request(MultiTarget(GitHub.user("octocat")))
/// let status = try await provider.request(.target(StatusAPI.health))
/// ```
///
/// Plugins see the wrapped target in ``RequestContext/target``, never the
/// wrapper, so a plugin's `context.target as? MyProtocol` still works.
public enum MultiTarget: TargetType {
    /// The wrapped target.
    case target(any TargetType)

    /// Wraps `target`.
    public init(_ target: any TargetType) {
        self = .target(target)
    }

    /// The wrapped target.
    public var target: any TargetType {
        switch self {
        case .target(let target): target
        }
    }

    public var baseURL: URL { target.baseURL }
    public var path: String { target.path }
    public var method: HTTPMethod { target.method }
    public var task: RequestTask { target.task }
    public var headers: [String: String]? { target.headers }
    public var validationType: ValidationType { target.validationType }
    public var sampleData: Data { target.sampleData }
    public var timeout: TimeInterval? { target.timeout }
    public var deadline: TimeInterval? { target.deadline }
    public var maximumResponseSize: Int64? { target.maximumResponseSize }
}

extension TargetType {
    /// The target itself, or the one a ``MultiTarget`` wraps (unwrapped all the
    /// way down): what to cast when looking for a protocol of your own on a
    /// provider's target (``RequestContext/target`` is unwrapped already).
    ///
    /// ```swift
    /// let retryable = (target.unwrapped as? any RetryableTarget)?.isRetryable ?? true
    /// ```
    public var unwrapped: any TargetType {
        // A type check first: for any other target type this costs no
        // dynamic cast on every request.
        guard Self.self == MultiTarget.self else { return self }
        var current: any TargetType = self
        while let multi = current as? MultiTarget {
            current = multi.target
        }
        return current
    }
}
