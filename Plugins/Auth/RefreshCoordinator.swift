import Courier
import Foundation

/// Runs at most one recovery at a time — refresh, then ask for credentials —
/// and makes every request that needs a new token wait for it.
///
/// A request that was refused with a token the store no longer holds gets the
/// store's newer token without another refresh, so requests that fail late
/// (after the refresh finished) never start a second one.
actor RefreshCoordinator {
    /// The coordinators whose recovery the current task is part of: a request
    /// made inside a refresh closure (to a refresh endpoint, through the same
    /// provider) must not wait for the refresh it belongs to.
    @TaskLocal static var recovering: Set<ObjectIdentifier> = []

    typealias Outcome = Result<Credential, AuthPlugin.Failure>

    private let store: any CredentialStoring
    private let refresh: AuthPlugin.Refresh
    private let askForCredentials: AuthPlugin.AskForCredentials?
    private let configuration: AuthPlugin.Configuration

    private var isRecovering = false
    private var waiters: [UInt64: CheckedContinuation<Credential, any Error>] = [:]
    private var nextWaiterID: UInt64 = 0
    private var lastOutcome: (startedFrom: String?, outcome: Outcome)?
    private var recoveryTimes: [TimeInterval] = []
    /// The token of the last successful refresh or sign-in. The server just
    /// issued it, so it is used even when the device's clock says it has
    /// expired (a clock ahead of the server's): the server's 401 is the truth.
    private var lastIssued: String?
    /// A renewed credential the store failed to save, and the token the
    /// store still holds in its place.
    private var unsaved: (credential: Credential, replacing: String?)?

    init(
        store: any CredentialStoring,
        configuration: AuthPlugin.Configuration,
        askForCredentials: AuthPlugin.AskForCredentials?,
        refresh: @escaping AuthPlugin.Refresh
    ) {
        self.store = store
        self.configuration = configuration
        self.askForCredentials = askForCredentials
        self.refresh = refresh
    }

    /// Whether the current task runs inside this coordinator's recovery.
    /// Tokens this coordinator handed out or renewed, newest last: a 401 to
    /// a request carrying one of them is the plugin's to recover from; any
    /// other `Authorization` header belongs to the caller.
    nonisolated let issued = Locked<[String]>([])

    nonisolated func record(_ token: String) {
        issued.withLock { tokens in
            guard tokens.last != token else { return }
            tokens.removeAll { $0 == token }
            tokens.append(token)
            if tokens.count > 16 { tokens.removeFirst() }
        }
    }

    nonisolated func issuedToken(_ token: String) -> Bool {
        issued.withLock { $0.contains(token) }
    }

    // MARK: - One coordinator per store

    private final class WeakCoordinator: @unchecked Sendable {
        weak var coordinator: RefreshCoordinator?
        init(_ coordinator: RefreshCoordinator) { self.coordinator = coordinator }
    }

    private static let byStore = Locked<[ObjectIdentifier: WeakCoordinator]>([:])

    /// The coordinator of `store`: one per store object, however many
    /// plugins and providers use it, so one refresh runs for all of them (a
    /// second refresh with a rotating refresh token would be refused). A
    /// store that is a value, not an object, gets a coordinator of its own.
    static func shared(for store: any CredentialStoring, make: () -> RefreshCoordinator) -> RefreshCoordinator {
        guard type(of: store as Any) is AnyClass else { return make() }
        let key = ObjectIdentifier(store as AnyObject)
        return byStore.withLock { entries in
            if let existing = entries[key]?.coordinator { return existing }
            entries = entries.filter { $0.value.coordinator != nil }
            let made = make()
            entries[key] = WeakCoordinator(made)
            return made
        }
    }

    nonisolated var isCurrentTaskRecovering: Bool {
        Self.recovering.contains(ObjectIdentifier(self))
    }

    // MARK: - Getting a token

    /// A credential that has not expired: the stored one, or a renewed one
    /// when it has expired or there is none.
    func usableCredential() async throws -> (credential: Credential, renewed: Bool) {
        if isRecovering { return (try await join(), true) }
        let current = currentCredential
        if let current, !isExpired(current) || current.accessToken == lastIssued { return (current, false) }
        return (try await renewed(replacing: current?.accessToken), true)
    }

    /// A credential other than the one whose access token is `stale` (refused
    /// by the server, or expired).
    /// - Throws: ``AuthPlugin/Failure`` or `CancellationError`.
    func renewed(replacing stale: String?) async throws -> Credential {
        if isRecovering { return try await join() }
        let current = currentCredential
        if let current, current.accessToken != stale, !isExpired(current) {
            return current
        }
        if current == nil, stale != nil, let lastOutcome, lastOutcome.startedFrom == stale,
           case .failure(let failure) = lastOutcome.outcome {
            throw failure
        }
        if current == nil, askForCredentials == nil {
            throw AuthPlugin.Failure.noCredential
        }
        try admitRecovery()
        start(from: current)
        return try await join()
    }

    /// The stored credential, or the renewed one the store could not save
    /// while the store still holds the token it replaced.
    private var currentCredential: Credential? {
        let stored = store.credential
        guard let unsaved, stored?.accessToken == unsaved.replacing else {
            self.unsaved = nil
            return stored
        }
        return unsaved.credential
    }

    private func isExpired(_ credential: Credential) -> Bool {
        credential.isExpired(at: configuration.now(), leeway: configuration.leeway)
    }

    /// Counts a recovery against the refresh window, or refuses it.
    private func admitRecovery() throws {
        let now = configuration.uptime()
        recoveryTimes.removeAll { now - $0 >= configuration.refreshWindow }
        guard recoveryTimes.count < configuration.maximumRefreshes else {
            throw AuthPlugin.Failure.refreshLimitExceeded(refreshes: recoveryTimes.count, seconds: configuration.refreshWindow)
        }
        recoveryTimes.append(now)
    }

    // MARK: - The one recovery

    private func start(from current: Credential?) {
        isRecovering = true
        let marked = Self.recovering.union([ObjectIdentifier(self)])
        Task {
            let outcome = await Self.$recovering.withValue(marked) {
                await self.recover(from: current)
            }
            self.finish(outcome, startedFrom: current?.accessToken)
        }
    }

    private nonisolated func recover(from current: Credential?) async -> Outcome {
        let startedFrom = current?.accessToken
        var refreshError: (any Error)?
        if let current {
            do {
                let timeout = configuration.refreshTimeout
                return save(try await Self.within(timeout) { [refresh] in try await refresh(current) }, replacing: startedFrom)
            } catch {
                // Only a refusal says the credential is bad. Anything else (no
                // network, a time-out, a 503, a cancelled task, an HTML error
                // page that could not be mapped) reached no verdict: keep the
                // credential, and do not sign the user out for a passing
                // outage.
                guard Self.isRefusal(error) else {
                    return .failure(.refreshFailed(error))
                }
                refreshError = error
            }
        }
        guard let askForCredentials else {
            clear(ifStillHolding: startedFrom)
            return .failure(refreshError.map(AuthPlugin.Failure.refreshFailed) ?? .noCredential)
        }
        do {
            return save(try await askForCredentials(), replacing: startedFrom)
        } catch {
            clear(ifStillHolding: startedFrom)
            return .failure(.credentialsUnavailable(refreshError: refreshError, askError: error))
        }
    }

    /// Whether a refresh failed because the server refused the credential: a
    /// 401 or 403 from the refresh endpoint, a 400 with OAuth's
    /// `invalid_grant` (also when its body could not be mapped), or
    /// ``AuthPlugin/RefreshRefused`` thrown by the refresh closure. Nothing
    /// else clears the store: another 4xx says the request or the path to
    /// the server is wrong (404, 407, 425, 451), not the credential.
    static func isRefusal(_ error: any Error) -> Bool {
        if error is AuthPlugin.RefreshRefused { return true }
        switch error as? NetworkError {
        case .statusCode(let response)?, .mappingFailed(let response, _)?:
            switch response.statusCode {
            case 401, 403: return true
            case 400: return isInvalidGrant(response.data)
            default: return false
            }
        case .plugin(_, let inner)?:
            return isRefusal(inner)
        default:
            return false
        }
    }

    /// Whether `body` is an OAuth 2.0 error answer (RFC 6749, 5.2) saying the
    /// refresh token is invalid, expired or revoked.
    private static func isInvalidGrant(_ body: Data) -> Bool {
        struct OAuthError: Decodable {
            let error: String
        }
        return (try? JSONDecoder().decode(OAuthError.self, from: body))?.error == "invalid_grant"
    }

    /// The refresh, or `NetworkError.timedOut` after `seconds`, whichever
    /// comes first. A refresh that ignores cancellation is abandoned, not
    /// awaited: nothing waits on it once the time is up.
    static func within(_ seconds: TimeInterval, _ refresh: @escaping @Sendable () async throws -> Credential) async throws -> Credential {
        let outcome = Locked<CheckedContinuation<Credential, any Error>?>(nil)
        let work = Locked<Task<Void, Never>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.withLock { $0 = continuation }
                let finish: @Sendable (Result<Credential, any Error>) -> Void = { result in
                    outcome.withLock { pending in
                        defer { pending = nil }
                        return pending
                    }?.resume(with: result)
                }
                work.withLock {
                    $0 = Task {
                        do { finish(.success(try await refresh())) } catch { finish(.failure(error)) }
                    }
                }
                Task {
                    try? await Task.sleep(nanoseconds: Self.nanoseconds(seconds))
                    finish(.failure(NetworkError.timedOut(AuthPlugin.RefreshTimedOut(seconds: seconds))))
                    work.withLock { $0 }?.cancel()
                }
            }
        } onCancel: {
            work.withLock { $0 }?.cancel()
        }
    }

    /// Saves the new credential unless the user signed out (or in) while the
    /// refresh ran: their choice wins over the refresh's answer. The check
    /// and the save are one step of the store's, so a sign-out cannot land
    /// between them and be undone.
    private nonisolated func save(_ credential: Credential, replacing startedFrom: String?) -> Outcome {
        do {
            guard try store.replaceCredential(holding: startedFrom, with: credential) else {
                return store.credential.map(Outcome.success) ?? .failure(.clearedDuringRefresh)
            }
        } catch {
            // The store still held what the refresh started from but could
            // not be written. The new credential works whether or not the
            // store kept it: the waiting requests use it, and the coordinator
            // keeps it in memory until the store holds something else.
            configuration.onStoreFailure?(error)
        }
        return .success(credential)
    }

    private nonisolated func clear(ifStillHolding startedFrom: String?) {
        _ = try? store.replaceCredential(holding: startedFrom, with: nil)
    }

    private func finish(_ outcome: Outcome, startedFrom: String?) {
        isRecovering = false
        if case .success(let credential) = outcome {
            lastIssued = credential.accessToken
            record(credential.accessToken)
            if store.credential?.accessToken == startedFrom {
                unsaved = (credential, startedFrom)
            }
        }
        lastOutcome = (startedFrom, outcome)
        let waiting = waiters
        waiters.removeAll()
        for continuation in waiting.values {
            continuation.resume(with: outcome.mapError { $0 })
        }
    }

    // MARK: - Waiting

    var waitingCount: Int { waiters.count }

    /// Waits for the running recovery; a cancelled waiter stops waiting at
    /// once, and the recovery goes on for the others.
    private func join() async throws -> Credential {
        nextWaiterID += 1
        let id = nextWaiterID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else if isRecovering {
                    waiters[id] = continuation
                } else {
                    continuation.resume(with: (lastOutcome?.outcome ?? .failure(.noCredential)).mapError { $0 })
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }

    /// The refresh time-out in nanoseconds, between a millisecond and a day,
    /// so no configured value (NaN and infinity included) can trap.
    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite else { return 86_400_000_000_000 }
        return UInt64(min(max(0.001, seconds), 86_400) * 1_000_000_000)
    }
}
