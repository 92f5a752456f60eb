import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A plugin as capable as a shipped one, written with nothing but Courier's
// public API: this folder imports `Courier` and Foundation alone, and CI
// builds a copy of it in a package of its own (.ci/outside-plugins).
//
// It signs requests with a session that it renews when the server says it
// expired, the way an authentication plugin does:
// - `prepare` adds the session header, renewing first when there is none;
// - `intercept` renews once and replays when the server answers 419, but
//   only for the origin the session was sent to and a body that can be sent
//   again, and while one renewal runs every other call waits for it;
// - `didReceive` writes one line per call, with secrets redacted;
// - `process` turns an expiry it could not recover from into the plugin's
//   own error, carried by `NetworkError.plugin`;
// - an event of its own tells metrics and tracing that a renewal happened,
//   and a per-call option turns it off for one call.

/// Signs every request with `X-Session` and renews the session when it
/// expires.
public final class SessionPlugin: Plugin {
    /// Why a call failed because of the session. It reaches the caller as
    /// `NetworkError.plugin("SessionPlugin", failure)`.
    public enum Failure: Error, Sendable, Equatable {
        /// The renewal endpoint refused to give a new session.
        case renewalRefused(statusCode: Int)
        /// The server still refused the request after a renewal.
        case refusedAfterRenewal
        /// The server said the session expired, and the call could not be
        /// sent again (another origin answered, or its body was a stream).
        case expired
    }

    /// Skips the plugin for one call: `options.setting(SessionPlugin.Skip.self, to: true)`.
    public enum Skip: RequestOptionKey {
        public static let defaultValue = false
    }

    /// The status the server uses for "session expired".
    public static let expiredStatus = 419

    private let renew: @Sendable () async throws -> String
    private let log: @Sendable (String) -> Void
    private let redactor = URLRedactor(names: URLRedactor.defaultSecretNames.union(["session"]))
    /// The session, and the renewal under way if there is one: shared by
    /// every call, so behind a lock, and never held across an `await`.
    private let state = Locked<(session: String?, renewal: Task<String, any Error>?)>((nil, nil))

    /// - Parameters:
    ///   - renew: Fetches a new session (from a login endpoint, a keychain…).
    ///   - log: Where the one-line summary of each call goes.
    public init(renew: @escaping @Sendable () async throws -> String, log: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.renew = renew
        self.log = log
    }

    /// The current session, for display and tests.
    public var session: String? { state.current.session }

    // MARK: Hooks

    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        guard !context.options[Skip.self] else { return request }
        if let session = state.current.session { return Self.signed(request, with: session) }
        return Self.signed(request, with: try await renewed(after: nil))
    }

    public func intercept(_ request: URLRequest, context: RequestContext, next: PluginNext) async throws -> Response {
        let response = try await next(request)
        // Only the origin the session went to can say it expired: a
        // redirect elsewhere arrived there without it.
        guard response.statusCode == Self.expiredStatus, !context.options[Skip.self],
              let sent = request.url, let answered = response.response?.url, answered.hasSameOrigin(as: sent),
              let stale = request.value(forHTTPHeaderField: "X-Session"),
              request.isBodyReplayable, context.isBodyReplayable
        else {
            return response
        }
        let session = try await renewed(after: stale)
        context.record(.init(.sessionRenewal, ["trigger": String(response.statusCode)]))
        let replayed = try await next(Self.signed(request, with: session))
        if replayed.statusCode == Self.expiredStatus { throw Failure.refusedAfterRenewal }
        return replayed
    }

    public func didReceive(_ result: Result<Response, NetworkError>, context: RequestContext) async {
        switch result {
        case .success(let response):
            let url = (response.request?.url ?? response.response?.url).map(redactor.url) ?? context.target.path
            log("\(url) -> \(response.statusCode) \(response.value(forHTTPHeaderField: "Content-Type") ?? "")")
        case .failure(let error):
            log("\(context.target.path) failed: \(error.caseName)")
        }
    }

    public func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        // An expiry that `intercept` could not recover from is the plugin's
        // failure to report, whatever the target's validation says.
        let response: Response?
        switch result {
        case .success(let answer), .failure(.statusCode(let answer)): response = answer
        case .failure: response = nil
        }
        guard response?.statusCode == Self.expiredStatus, !context.options[Skip.self] else { return result }
        return .failure(.plugin("SessionPlugin", Failure.expired))
    }

    // MARK: Renewing once for everyone

    /// A new session, replacing `stale`. Calls that find a renewal running
    /// wait for it instead of starting their own; a call whose stale session
    /// was replaced already takes the new one.
    private func renewed(after stale: String?) async throws -> String {
        let renewal: Task<String, any Error> = state.withLock { state in
            if let running = state.renewal { return running }
            if let current = state.session, current != stale { return Task { current } }
            let task = Task { [renew] in try await renew() }
            state.renewal = task
            return task
        }
        do {
            let session: String
            do {
                session = try await renewal.value
            } catch NetworkError.statusCode(let response) {
                throw Failure.renewalRefused(statusCode: response.statusCode)
            }
            state.withLock { state in
                if state.renewal == renewal { (state.session, state.renewal) = (session, nil) }
            }
            return session
        } catch {
            state.withLock { state in
                if state.renewal == renewal { state.renewal = nil }
            }
            throw error
        }
    }

    private static func signed(_ request: URLRequest, with session: String) -> URLRequest {
        var request = request
        request.setValue(session, forHTTPHeaderField: "X-Session")
        return request
    }
}

extension RequestContext.Event.Name {
    /// ``SessionPlugin`` renewed the session during a call. Attribute:
    /// `trigger`, the status that asked for it.
    public static let sessionRenewal: Self = "example.session_renewal"
}

extension Provider {
    /// The provider's session plugin, if it has one.
    public var sessionPlugin: SessionPlugin? { plugin(SessionPlugin.self) }
}
