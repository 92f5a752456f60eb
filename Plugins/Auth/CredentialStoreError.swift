import Courier
import Foundation

/// Why a ``CredentialStoring`` store could not save or clear a credential.
public enum CredentialStoreError: Error, Sendable, CustomStringConvertible {
    /// The credential file (or its temporary sibling) could not be written;
    /// the previous file is untouched.
    case writeFailed(path: String, reason: String)
    /// The credential file could not be removed.
    case removeFailed(path: String, reason: String)
    /// The credential could not be encoded as JSON.
    case encodingFailed(reason: String)
    /// A Keychain call failed with this `OSStatus`.
    case keychain(operation: String, status: Int32)

    /// What went wrong and what to do, without any token.
    public var description: String {
        switch self {
        case .writeFailed(let path, let reason):
            "The credential could not be written to \(path) (\(reason)); the previous file is unchanged. "
                + "Check that the directory exists and is writable."
        case .removeFailed(let path, let reason):
            "The credential file \(path) could not be removed (\(reason)). Check the file's permissions."
        case .encodingFailed(let reason):
            "The credential could not be encoded as JSON (\(reason))."
        case .keychain(let operation, let status):
            "The Keychain refused to \(operation) the credential (OSStatus \(status)). "
                + "Check the app's Keychain entitlements and access group."
        }
    }
}
