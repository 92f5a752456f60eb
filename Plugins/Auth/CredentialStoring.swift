import Courier
import Foundation

/// Somewhere a ``Credential`` is kept: memory, a file, the Keychain.
///
/// ``AuthPlugin`` reads the credential before each request and saves the one a
/// refresh returns. An extension gives every store a token API for sign-in
/// code and tests: `clear()`, `update(token:refreshToken:expiresIn:now:)`,
/// `isExpired(leeway:now:)`, `accessToken` and `refreshToken`.
///
/// ```swift
/// let store = FileCredentialStore(fileURL: supportDirectory.appendingPathComponent("credential.json"))
/// try store.update(token: "abc", refreshToken: "r1", expiresIn: 3600)
/// store.isExpired()  // false
/// store.accessToken  // "abc"
/// ```
///
/// ## Implementation requirements
/// - Every member is called from many tasks at once: make them thread-safe.
/// - Never log or print a token; ``Credential``'s description redacts it.
/// - A store that cannot read what it holds (a corrupt file) reports no
///   credential rather than crashing, so the app can sign in again.
public protocol CredentialStoring: Sendable {
    /// The stored credential, or `nil` when there is none.
    var credential: Credential? { get }

    /// Replaces the stored credential.
    /// - Parameter credential: The credential to keep.
    /// - Throws: ``CredentialStoreError`` when it cannot be written; the
    ///   previous credential is then still stored.
    func save(_ credential: Credential) throws

    /// Removes the stored credential.
    /// - Throws: ``CredentialStoreError`` when it cannot be removed.
    func clear() throws

    /// Replaces the stored credential with `credential` (or removes it, for
    /// `nil`) only while the store still holds the one whose access token is
    /// `accessToken` (`nil`: holds none), in one step that no `save` or
    /// `clear` can come between.
    ///
    /// ``AuthPlugin`` saves a refresh's answer this way, so a user who signs
    /// out (or in) while a refresh runs is never undone by it. The default
    /// implementation checks, then saves: a store that can do both under one
    /// lock should implement this itself, as the shipped stores do.
    /// - Parameters:
    ///   - accessToken: The access token the store must still hold.
    ///   - credential: What to store; `nil` removes the credential.
    /// - Returns: `false`, changing nothing, when the store holds something
    ///   else.
    /// - Throws: ``CredentialStoreError`` when the store held `accessToken`
    ///   but could not be written; it then still holds what it held.
    func replaceCredential(holding accessToken: String?, with credential: Credential?) throws -> Bool
}

extension CredentialStoring {
    /// Checks, then saves or clears: not one step. Implement it in a store
    /// that can lock both together.
    public func replaceCredential(holding accessToken: String?, with credential: Credential?) throws -> Bool {
        guard self.credential?.accessToken == accessToken else { return false }
        if let credential { try save(credential) } else { try clear() }
        return true
    }
}

// MARK: - The token API

extension CredentialStoring {
    /// The current access token, or `nil`.
    public var accessToken: String? { credential?.accessToken }

    /// The current refresh token, or `nil`.
    public var refreshToken: String? { credential?.refreshToken }

    /// Stores a new token, the way a sign-in or refresh response gives it.
    ///
    /// - Parameters:
    ///   - token: The new access token.
    ///   - refreshToken: The new refresh token; `nil` keeps the current one,
    ///     since many servers send a refresh token only once.
    ///   - expiresIn: Seconds until the token expires; `nil` for never or
    ///     unknown.
    ///   - now: The current time (inject a clock in tests).
    /// - Throws: ``CredentialStoreError`` when the store cannot be written.
    public func update(token: String, refreshToken: String? = nil, expiresIn: TimeInterval? = nil, now: Date = Date()) throws {
        let credential = Credential(
            accessToken: token,
            refreshToken: refreshToken ?? self.refreshToken,
            expiresIn: expiresIn,
            now: now
        )
        try save(credential)
    }

    /// Whether there is no usable access token: none is stored, or it expires
    /// within `leeway` seconds of `now`.
    /// - Parameters:
    ///   - leeway: Seconds before the expiry date from which the token counts
    ///     as expired.
    ///   - now: The current time (inject a clock in tests).
    /// - Returns: `true` when a new token is needed.
    public func isExpired(leeway: TimeInterval = 0, now: Date = Date()) -> Bool {
        guard let credential else { return true }
        return credential.isExpired(at: now, leeway: leeway)
    }
}
