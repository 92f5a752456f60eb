import Foundation
import NIOSSL

/// How a ``LoopbackServer`` speaks HTTPS: which test certificate it presents
/// and whether it offers HTTP/2.
///
/// The certificates are in ``TestCertificates``: a private root that signs
/// the good ones, and the bad ones a client must refuse.
public struct LoopbackTLS: Sendable {
    /// The certificate the server presents.
    public enum Certificate: String, Sendable, CaseIterable {
        /// For 127.0.0.1 and localhost, signed by the test root, valid until 2120.
        case valid
        /// Like ``valid``, with another key: a server that rotated its key.
        case rotated
        /// Signed by the test root, valid only during 2000.
        case expired
        /// Signed by the test root, for other.example only.
        case otherHost
        /// For 127.0.0.1 and localhost, signed by itself.
        case selfSigned
        /// For 127.0.0.1 and localhost, signed by a root no test trusts.
        case otherRoot
    }

    /// The certificate the server presents.
    public var certificate: Certificate
    /// Whether the server offers HTTP/2 (ALPN `h2`) besides HTTP/1.1.
    public var offersHTTP2: Bool
    /// Whether the server sends the certificate's issuer after it (never for
    /// the self-signed one). Without it, a certificate from an unknown
    /// authority arrives alone, as from a server that forgot its chain.
    public var sendsIssuer: Bool

    /// Creates a TLS setting.
    /// - Parameters:
    ///   - certificate: The certificate the server presents.
    ///   - offersHTTP2: Whether the server offers HTTP/2.
    ///   - sendsIssuer: Whether the server sends the certificate's issuer
    ///     after it.
    public init(certificate: Certificate = .valid, offersHTTP2: Bool = true, sendsIssuer: Bool = true) {
        self.certificate = certificate
        self.offersHTTP2 = offersHTTP2
        self.sendsIssuer = sendsIssuer
    }

    /// The server side's TLS configuration: the certificate with its issuer
    /// (the self-signed one alone), and the protocols offered.
    /// - Throws: When a bundled certificate or key does not parse.
    public func serverConfiguration() throws -> TLSConfiguration {
        let (certificatePEM, keyPEM) = TestCertificates.pem(of: certificate)
        var chain = [try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)]
        if certificate != .selfSigned, sendsIssuer {
            let issuer = certificate == .otherRoot ? TestCertificatePEM.otherRootCertificate : TestCertificatePEM.rootCertificate
            chain.append(try NIOSSLCertificate(bytes: Array(issuer.utf8), format: .pem))
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
        )
        configuration.applicationProtocols = offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        return configuration
    }
}

/// The test certificates, as a client needs them.
public enum TestCertificates {
    /// The private root that signs the good test certificates, in PEM.
    public static var rootPEM: String { TestCertificatePEM.rootCertificate }
    /// The private root, DER-encoded.
    public static var rootDER: Data { der(TestCertificatePEM.rootCertificate) }
    /// A second root, which signs ``LoopbackTLS/Certificate/otherRoot``, DER-encoded.
    public static var otherRootDER: Data { der(TestCertificatePEM.otherRootCertificate) }
    /// The self-signed server certificate, DER-encoded.
    public static var selfSignedDER: Data { der(TestCertificatePEM.selfSignedCertificate) }

    /// A server certificate, DER-encoded.
    public static func der(of certificate: LoopbackTLS.Certificate) -> Data {
        der(pem(of: certificate).certificate)
    }

    static func pem(of certificate: LoopbackTLS.Certificate) -> (certificate: String, key: String) {
        switch certificate {
        case .valid: (TestCertificatePEM.validCertificate, TestCertificatePEM.validKey)
        case .rotated: (TestCertificatePEM.rotatedCertificate, TestCertificatePEM.rotatedKey)
        case .expired: (TestCertificatePEM.expiredCertificate, TestCertificatePEM.expiredKey)
        case .otherHost: (TestCertificatePEM.otherHostCertificate, TestCertificatePEM.otherHostKey)
        case .selfSigned: (TestCertificatePEM.selfSignedCertificate, TestCertificatePEM.selfSignedKey)
        case .otherRoot: (TestCertificatePEM.otherRootLeafCertificate, TestCertificatePEM.otherRootLeafKey)
        }
    }

    private static func der(_ pem: String) -> Data {
        // The committed certificates always parse; an empty result fails the tests that use it.
        Data((try? NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem).toDERBytes()) ?? [])
    }
}
