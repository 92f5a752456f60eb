import Courier
import Foundation

/// Keeps a ``Credential`` in memory only, for the life of the process: for
/// tests, and for apps that sign in every launch.
///
/// ```swift
/// let store = InMemoryCredentialStore(Credential(accessToken: "abc", refreshToken: "r1", expiresIn: 3600))
/// let provider = Provider<API>(plugins: [AuthPlugin(store: store, refresh: renew)])
/// ```
public final class InMemoryCredentialStore: CredentialStoring {
    private let stored: Locked<Credential?>

    /// Creates a store holding `credential`.
    /// - Parameter credential: The initial credential, or `nil` for none.
    public init(_ credential: Credential? = nil) {
        self.stored = Locked(credential)
    }

    /// The stored credential, or `nil`.
    public var credential: Credential? {
        stored.withLock { $0 }
    }

    /// Replaces the stored credential. Never throws.
    /// - Parameter credential: The credential to keep.
    public func save(_ credential: Credential) {
        stored.withLock { $0 = credential }
    }

    /// Removes the stored credential. Never throws.
    public func clear() {
        stored.withLock { $0 = nil }
    }

    /// Replaces (or, for `nil`, removes) the credential while it is still the
    /// one whose access token is `accessToken`, under one lock. Never throws.
    /// - Returns: `false`, changing nothing, when the store holds another.
    public func replaceCredential(holding accessToken: String?, with credential: Credential?) -> Bool {
        stored.withLock { stored in
            guard stored?.accessToken == accessToken else { return false }
            stored = credential
            return true
        }
    }
}
