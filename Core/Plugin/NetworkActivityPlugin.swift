import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Says when a call starts and stops using the network, for an activity
/// indicator or a count of calls in flight (Moya's `NetworkActivityPlugin`).
///
/// ```swift
/// let activity = NetworkActivityPlugin { change, _ in
///     Task { @MainActor in indicator.isAnimating = (change == .began) }
/// }
/// let provider = Provider<GitHub>(plugins: [activity])
/// ```
///
/// Each call reports `.began` once, before its first attempt is sent (retries
/// do not report again), and `.ended` once when its result is known; a call
/// that failed before anything was sent reports neither. Stubbed calls report
/// too, as in Moya.
public final class NetworkActivityPlugin: Plugin {
    /// Whether a call started or stopped.
    public enum Change: Sendable, Equatable {
        /// The call's first attempt is about to be sent.
        case began
        /// The call's result is known.
        case ended
    }

    /// Receives each change and the target of the call.
    public typealias Handler = @Sendable (_ change: Change, _ target: any TargetType) -> Void

    private let handler: Handler
    private let active = Locked<Set<UInt64>>([])

    /// Creates the plugin.
    /// - Parameter handler: Called on whichever thread runs the call; hop to
    ///   the main actor yourself to touch UI.
    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    public func willSend(_ request: URLRequest, context: RequestContext) async {
        guard active.withLock({ $0.insert(context.id).inserted }) else { return }
        handler(.began, context.target)
    }

    public func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        guard active.withLock({ $0.remove(context.id) != nil }) else { return }
        handler(.ended, context.target)
    }
}
