import Foundation

/// Why an HTTPS server was not trusted; the error of
/// ``NetworkError/serverTrustFailed(_:)``.
///
/// ```swift
/// do {
///     _ = try await provider.request(.profile)
/// } catch .serverTrustFailed(let failure) where failure.reason == .expired {
///     // the server's certificate ran out: nothing the user can fix
/// }
/// ```
public struct ServerTrustFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the server's certificate, or with the trust
    /// configuration.
    public enum Reason: Sendable, Hashable {
        /// The certificate's validity ended.
        case expired
        /// The certificate's validity has not begun (or the device's clock is behind).
        case notYetValid
        /// The certificate is for other host names.
        case hostMismatch
        /// The certificate was signed by an authority the transport does not
        /// trust.
        case untrustedRoot
        /// The certificate signed itself, and is not trusted as a root.
        case selfSigned
        /// The host is pinned and its chain contains none of its pins.
        case pinMismatch
        /// A certificate given to ``ServerTrust`` could not be read.
        case invalidCertificate
        /// A host given to ``ServerTrust/pinning(_:to:_:)`` could never match
        /// a URL's host (a port, a scheme or path, characters other than
        /// ASCII); the text is the host as given.
        case invalidPinHost(String)
        /// The transport cannot honour a ``ServerTrust`` setting on this
        /// platform; the text says which and what can.
        case unsupportedSetting(String)
        /// The TLS handshake failed for another reason, or the reason could
        /// not be found out; the text says what happened, in the TLS
        /// library's words where it gave any.
        case handshakeFailed(String)
    }

    /// The host whose certificate was refused (empty for a configuration error).
    public let host: String
    /// Why.
    public let reason: Reason

    /// Creates a failure.
    /// - Parameters:
    ///   - host: The host whose certificate was refused.
    ///   - reason: Why.
    public init(host: String, reason: Reason) {
        self.host = host
        self.reason = reason
    }

    public var description: String {
        let server = host.isEmpty ? "the server" : host
        switch reason {
        case .expired:
            return "the certificate of \(server) has expired; the server must renew it (or the device's clock is ahead)"
        case .notYetValid:
            return "the certificate of \(server) is not valid yet; check the device's clock, or the server installed it too early"
        case .hostMismatch:
            return "the certificate presented by \(server) is for another host name; check the URL's host, or the server's certificate"
        case .untrustedRoot:
            return "the certificate of \(server) was issued by an authority this device does not trust; "
                + "for a private authority, add its root with ServerTrust.trusting(rootCertificate:)"
        case .selfSigned:
            return "the certificate of \(server) is self-signed; trust it explicitly with ServerTrust.trusting(rootCertificate:) "
                + "if this is your own server"
        case .pinMismatch:
            return "the certificate chain of \(server) contains none of its pins; the server changed its certificate, "
                + "or someone is intercepting the connection"
        case .invalidCertificate:
            return "a certificate given to ServerTrust is not a DER or PEM certificate"
        case .invalidPinHost(let given):
            return "“\(given)” cannot be pinned: give a host name or IP address alone, without scheme, port or path, "
                + "and an international name in its xn-- (punycode) form"
        case .unsupportedSetting(let detail):
            return detail
        case .handshakeFailed(let detail):
            return "the TLS handshake with \(server) failed (\(detail))"
        }
    }

    // MARK: - Reading a TLS library's words

    /// The reason an OpenSSL-style verification message names ("certificate
    /// has expired", "self-signed certificate", "unable to get local issuer
    /// certificate"), or `nil` when it names none. FoundationNetworking on
    /// Linux reports certificate failures only as such a sentence from
    /// libcurl.
    static func reason(inVerificationMessage message: String) -> Reason? {
        let text = message.lowercased()
        let rules: [(String, Reason)] = [
            ("certificate has expired", .expired),
            ("certificate is not yet valid", .notYetValid),
            ("no alternative certificate subject name matches", .hostMismatch),
            ("does not match target host name", .hostMismatch),
            ("subject name does not match", .hostMismatch),
            // A chain that ends in an unknown root that signed itself.
            ("self-signed certificate in certificate chain", .untrustedRoot),
            ("self signed certificate in certificate chain", .untrustedRoot),
            ("self-signed certificate", .selfSigned),
            ("self signed certificate", .selfSigned),
            ("unable to get local issuer certificate", .untrustedRoot),
            ("unable to get issuer certificate", .untrustedRoot),
            ("unable to verify the first certificate", .untrustedRoot),
            ("certificate signature failure", .untrustedRoot),
        ]
        return rules.first { text.contains($0.0) }?.1
    }
}
