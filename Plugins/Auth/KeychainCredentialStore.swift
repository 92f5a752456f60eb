#if canImport(Security)
import Courier
import Foundation
import Security

/// Keeps a ``Credential`` in the Keychain as a generic password item (Apple
/// platforms only).
///
/// ```swift
/// let store = KeychainCredentialStore(service: "com.example.app.api", account: "default")
/// ```
///
/// The item is readable after the device's first unlock, so background
/// refreshes work, and it is `ThisDeviceOnly`: it is left out of backups and
/// never migrates to another device.
public final class KeychainCredentialStore: CredentialStoring {
    /// The Keychain service (usually your bundle identifier plus the API's name).
    public let service: String
    /// The Keychain account (one per signed-in user, or a fixed name).
    public let account: String
    /// The access group to share the item between apps, or `nil`.
    public let accessGroup: String?

    /// Creates a store for one Keychain item.
    /// - Parameters:
    ///   - service: The item's service.
    ///   - account: The item's account.
    ///   - accessGroup: The Keychain access group, or `nil` for the app's own.
    public init(service: String, account: String = "credential", accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    // MARK: - CredentialStoring

    /// The credential in the Keychain, or `nil` when there is none or the item
    /// cannot be decoded.
    public var credential: Credential? {
        var query = baseQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
            return nil
        }
        return try? JSONDecoder().decode(Credential.self, from: data)
    }

    /// Writes `credential` to the Keychain, replacing the item.
    /// - Parameter credential: The credential to keep.
    /// - Throws: ``CredentialStoreError/keychain(operation:status:)``.
    public func save(_ credential: Credential) throws {
        let data: Data
        do {
            data = try JSONEncoder().encode(credential)
        } catch {
            throw CredentialStoreError.encodingFailed(reason: "\(type(of: error))")
        }
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        let status = SecItemUpdate(baseQuery as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            let added = SecItemAdd(baseQuery.merging(attributes) { $1 } as CFDictionary, nil)
            guard added == errSecSuccess else { throw CredentialStoreError.keychain(operation: "add", status: added) }
        } else if status != errSecSuccess {
            throw CredentialStoreError.keychain(operation: "update", status: status)
        }
    }

    /// Deletes the Keychain item.
    /// - Throws: ``CredentialStoreError/keychain(operation:status:)``.
    public func clear() throws {
        let status = SecItemDelete(baseQuery as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw CredentialStoreError.keychain(operation: "delete", status: status)
        }
    }

    // MARK: - Query

    private var baseQuery: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup {
            query[kSecAttrAccessGroup as String] = accessGroup
        }
        return query
    }
}
#endif
