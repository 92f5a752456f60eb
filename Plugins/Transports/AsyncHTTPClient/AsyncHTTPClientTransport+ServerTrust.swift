import Courier
import Foundation
import NIOSSL

extension AsyncHTTPClientTransport {
    /// A `ServerTrust` as AsyncHTTPClient's TLS configurations, built on the
    /// configuration's own TLS settings: extra roots beside the system's for
    /// every host, and for a pinned host its pinned certificates as the only
    /// roots.
    ///
    /// AsyncHTTPClient gives no hook to see a server's certificate during the
    /// handshake, so a pin can only be a root the handshake must end in: a
    /// public-key pin is refused at once, naming the transport that honours it.
    struct TLSPolicy: Sendable {
        let trust: ServerTrust
        /// The configuration of hosts without pins; `nil` for the system's trust.
        let base: TLSConfiguration?
        /// The configuration of each pinned host, or why it cannot have one.
        let pinned: [String: Result<TLSConfiguration, NetworkError>]
        /// Whether an extra root is not a certificate: every HTTPS request then fails.
        let hasInvalidRoot: Bool
        /// Whether the client was made with ``base``, so a request to a host
        /// without pins needs no configuration of its own (a request's
        /// configuration costs AsyncHTTPClient a pool lookup by its hash).
        let clientHasBase: Bool

        init(_ trust: ServerTrust, base tls: TLSConfiguration?, clientHasBase: Bool) {
            self.trust = trust
            self.clientHasBase = clientHasBase
            var base = tls ?? TLSConfiguration.makeClientConfiguration()
            let roots = trust.additionalRootCertificates.map { try? Self.certificate($0) }
            hasInvalidRoot = roots.contains(nil)
            base.additionalTrustRoots = roots.isEmpty || hasInvalidRoot ? [] : [.certificates(roots.compactMap { $0 })]
            self.base = trust.isSystemDefault ? tls : base
            var pinned: [String: Result<TLSConfiguration, NetworkError>] = [:]
            for (host, pins) in trust.pins {
                pinned[host] = Result { () throws(NetworkError) -> TLSConfiguration in
                    var configuration = base
                    configuration.additionalTrustRoots = []
                    configuration.trustRoots = .certificates(try pins.map { pin throws(NetworkError) in
                        guard case .certificate(let der) = pin else {
                            throw .serverTrustFailed(ServerTrustFailure(host: host, reason: .unsupportedSetting(
                                "AsyncHTTPClientTransport cannot pin a public key: AsyncHTTPClient shows no certificate during "
                                    + "the handshake. Pin the root certificate that issues \(host)'s certificates with "
                                    + "CertificatePin.certificate, or use URLSessionTransport on Apple platforms")))
                        }
                        return try Self.certificate(der)
                    })
                    return configuration
                }
            }
            self.pinned = pinned
        }

        /// The TLS configuration of a request to `url`: `nil` for the client's own.
        func configuration(for url: URL) throws(NetworkError) -> TLSConfiguration? {
            guard let base, url.scheme?.lowercased() == "https" else { return nil }
            if hasInvalidRoot { throw .serverTrustFailed(ServerTrustFailure(host: url.host ?? "", reason: .invalidCertificate)) }
            if let pinned = pinned[ServerTrust.normalizedHost(url.host ?? "")] { return try pinned.get() }
            return clientHasBase ? nil : base
        }

        private static func certificate(_ der: Data) throws(NetworkError) -> NIOSSLCertificate {
            do {
                return try NIOSSLCertificate(bytes: Array(der), format: .der)
            } catch {
                throw .serverTrustFailed(ServerTrustFailure(host: "", reason: .invalidCertificate))
            }
        }
    }
}
