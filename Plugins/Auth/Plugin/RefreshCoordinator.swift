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
    private var recoveryDates: [Date] = []
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
    nonisolated var isCurrentTaskRecovering: Bool {
        Self.recovering.contains(ObjectIdentifier(self))
    }

    // MARK: - Getting a token

    /// A credential that has not expired: the stored one, or a renewed one
    /// when it has expired or there is none.
    func usableCredential() async throws -> Credential {
        if isRecovering { return try await join() }
        let current = currentCredential
        if let current, !isExpired(current) { return current }
        return try await renewed(replacing: current?.accessToken)
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
        let now = configuration.now()
        recoveryDates.removeAll { now.timeIntervalSince($0) >= configuration.refreshWindow }
        guard recoveryDates.count < configuration.maximumRefreshes else {
            throw AuthPlugin.Failure.refreshLimitExceeded(refreshes: recoveryDates.count, seconds: configuration.refreshWindow)
        }
        recoveryDates.append(now)
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
                return save(try await refresh(current), replacing: startedFrom)
            } catch {
                // A refresh that did not reach a verdict (no network, a 503)
                // says nothing about the credential: keep it, and do not
                // interrupt the user with a sign-in for a passing outage.
                if Self.isTransient(error) {
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

    /// Whether a refresh error is a network failure that may pass by itself,
    /// rather than the server refusing the refresh token.
    static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? NetworkError else { return false }
        switch error {
        case .noConnection, .timedOut, .connectionLost, .serverUnreachable, .cancelled:
            return true
        case .statusCode(let response):
            return response.statusCode >= 500 || response.statusCode == 408 || response.statusCode == 429
        default:
            return false
        }
    }

    /// Saves the new credential unless the user signed out (or in) while the
    /// refresh ran: their choice wins over the refresh's answer.
    private nonisolated func save(_ credential: Credential, replacing startedFrom: String?) -> Outcome {
        let stored = store.credential
        guard stored?.accessToken == startedFrom else {
            return stored.map(Outcome.success) ?? .failure(.clearedDuringRefresh)
        }
        do {
            try store.save(credential)
        } catch {
            // The new credential works whether or not the store kept it: the
            // waiting requests use it, and the coordinator keeps it in memory
            // until the store holds something else.
            configuration.onStoreFailure?(error)
        }
        return .success(credential)
    }

    private nonisolated func clear(ifStillHolding startedFrom: String?) {
        guard store.credential?.accessToken == startedFrom else { return }
        try? store.clear()
    }

    private func finish(_ outcome: Outcome, startedFrom: String?) {
        isRecovering = false
        if case .success(let credential) = outcome, store.credential?.accessToken == startedFrom {
            unsaved = (credential, startedFrom)
        }
        lastOutcome = (startedFrom, outcome)
        let waiting = waiters
        waiters.removeAll()
        for continuation in waiting.values {
            continuation.resume(with: outcome.mapError { $0 })
        }
    }

    // MARK: - Waiting

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
}
