#if canImport(Security)
import CryptoKit
import Foundation
import Security

/// A ``ServerTrust`` applied to a server-trust challenge on Apple platforms:
/// the extra roots and the host's pinned certificates as anchors beside the
/// system's, the ordinary evaluation (dates, host name, a trusted root), then
/// the host's pins against every certificate of the evaluated chain.
///
/// It runs on the session's delegate queue; an evaluation that needs the
/// network (revocation) holds that queue meanwhile.
enum ServerTrustEvaluation {
    /// Why `trust` is refused for `host`, or `nil` when it is accepted.
    static func failure(of trust: SecTrust, host: String, configuration: ServerTrust) -> ServerTrustFailure? {
        let pins = configuration.pins(for: host)
        var anchorData = configuration.additionalRootCertificates
        for case .certificate(let der) in pins ?? [] { anchorData.append(der) }
        let anchors = anchorData.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        guard anchors.count == anchorData.count else {
            return ServerTrustFailure(host: host, reason: .invalidCertificate)
        }
        if !anchors.isEmpty {
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, false)
        }
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        guard trusted else {
            return ServerTrustFailure(host: host, reason: reason(for: error, chain: chain))
        }
        guard let pins else { return nil }
        let matches = chain.contains { certificate in
            let der = SecCertificateCopyData(certificate) as Data
            if pins.contains(.certificate(der)) { return true }
            guard let hash = publicKeyHash(of: certificate) else { return false }
            return pins.contains(.publicKeySHA256(hash))
        }
        return matches ? nil : ServerTrustFailure(host: host, reason: .pinMismatch)
    }

    private static func reason(for error: CFError?, chain: [SecCertificate]) -> ServerTrustFailure.Reason {
        guard let error else { return .handshakeFailed("the certificate was not trusted") }
        let code = OSStatus(truncatingIfNeeded: CFErrorGetCode(error))
        if code == errSecCertificateExpired { return .expired }
        if code == errSecCertificateNotValidYet { return .notYetValid }
        if code == errSecHostNameMismatch { return .hostMismatch }
        if code == errSecNotTrusted { return isSelfSigned(chain) ? .selfSigned : .untrustedRoot }
        return .handshakeFailed((error as any Error).localizedDescription)
    }

    /// A chain of one certificate whose issuer is its subject.
    private static func isSelfSigned(_ chain: [SecCertificate]) -> Bool {
        guard chain.count == 1, let leaf = chain.first,
              let issuer = SecCertificateCopyNormalizedIssuerSequence(leaf),
              let subject = SecCertificateCopyNormalizedSubjectSequence(leaf) else { return false }
        return (issuer as Data) == (subject as Data)
    }

    // MARK: - Public-key pins

    /// The base64 SHA-256 of a certificate's SubjectPublicKeyInfo, rebuilt
    /// from the key Security exports (PKCS #1 for RSA, X9.63 for elliptic
    /// curves) and its algorithm.
    private static func publicKeyHash(of certificate: SecCertificate) -> String? {
        guard let key = SecCertificateCopyKey(certificate),
              let raw = SecKeyCopyExternalRepresentation(key, nil) as Data?,
              let attributes = SecKeyCopyAttributes(key) as? [CFString: Any],
              let type = attributes[kSecAttrKeyType] as? String,
              let bits = attributes[kSecAttrKeySizeInBits] as? Int,
              let algorithm = algorithmIdentifier(type: type, bits: bits) else { return nil }
        let info = DER.sequence(algorithm + DER.element(0x03, [0x00] + Array(raw)))
        return Data(SHA256.hash(data: Data(info))).base64EncodedString()
    }

    private static func algorithmIdentifier(type: String, bits: Int) -> [UInt8]? {
        let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        if type == kSecAttrKeyTypeRSA as String {
            return DER.sequence(rsaEncryption + [0x05, 0x00])
        }
        guard type == kSecAttrKeyTypeECSECPrimeRandom as String else { return nil }
        let curve: [UInt8]
        switch bits {
        case 256: curve = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        case 384: curve = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
        case 521: curve = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]
        default: return nil
        }
        return DER.sequence(ecPublicKey + curve)
    }

    /// The few DER encodings a SubjectPublicKeyInfo needs.
    private enum DER {
        static func sequence(_ content: [UInt8]) -> [UInt8] { element(0x30, content) }

        static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            [tag] + length(content.count) + content
        }

        private static func length(_ count: Int) -> [UInt8] {
            guard count >= 0x80 else { return [UInt8(count)] }
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            return [0x80 | UInt8(bytes.count)] + bytes
        }
    }
}
#endif
