import Foundation

/// Which HTTPS servers a transport trusts: the system's roots, roots you add
/// (a private certificate authority), and, per host, pins that the server's
/// certificate chain must contain.
///
/// One value configures either transport:
///
/// ```swift
/// let trust = try ServerTrust.system
///     .trusting(rootCertificatePEM: companyRootPEM)
///     .pinning("api.example.com", to: .certificate(apiRootDER))
/// let transport = AsyncHTTPClientTransport(configuration: .init(serverTrust: trust))
/// ```
///
/// The rules:
/// - Pinning never loosens the ordinary checks: a pinned server's certificate
///   must still be in date and name the host.
/// - A pinned certificate is trusted as a root for its host (so a private
///   authority can be pinned without adding it as a root), and the host's
///   chain must contain at least one of its pins. ``pinning(_:to:_:)`` takes
///   one pin or more, so a pin set is never empty; a host without pins is
///   checked the ordinary way.
/// - A server that rotates its certificate keeps working as long as the new
///   chain still contains a pin: pin the authority that issues the server's
///   certificates, or add the next key's pin before the rotation.
/// - Hosts are matched exactly, ignoring case, a trailing dot and IPv6
///   brackets (``normalizedHost(_:)``): pinning `example.com` does not pin
///   `api.example.com`. Give international names as URLs carry them
///   (`xn--` punycode); a host that could never match (with a port, a
///   scheme, non-ASCII) is refused when pinned.
/// - A transport that cannot honour a setting on its platform fails every
///   request that needs it at once with
///   ``ServerTrustFailure/Reason/unsupportedSetting(_:)``, naming the
///   transport that can; it never ignores the setting.
public struct ServerTrust: Sendable, Hashable {
    /// Root certificates (DER) trusted in addition to the system's.
    public private(set) var additionalRootCertificates: [Data]
    /// The pins of each pinned host, keyed by ``normalizedHost(_:)``.
    public private(set) var pins: [String: Set<CertificatePin>]

    /// The system's roots and nothing else: what a transport trusts unless
    /// told otherwise.
    public static let system = ServerTrust(additionalRootCertificates: [], pins: [:])

    private init(additionalRootCertificates: [Data], pins: [String: Set<CertificatePin>]) {
        self.additionalRootCertificates = additionalRootCertificates
        self.pins = pins
    }

    /// Whether this is ``system``: nothing to configure on a transport.
    public var isSystemDefault: Bool { additionalRootCertificates.isEmpty && pins.isEmpty }

    /// This trust plus one more root certificate, for example your company's
    /// private certificate authority.
    /// - Parameter certificate: The root certificate, DER-encoded.
    /// - Returns: The new trust.
    public func trusting(rootCertificate certificate: Data) -> ServerTrust {
        var trust = self
        trust.additionalRootCertificates.append(certificate)
        return trust
    }

    /// This trust plus the root certificates in a PEM text (one or more
    /// `BEGIN CERTIFICATE` blocks).
    /// - Parameter pem: The PEM text.
    /// - Returns: The new trust.
    /// - Throws: ``NetworkError/serverTrustFailed(_:)`` with
    ///   ``ServerTrustFailure/Reason/invalidCertificate`` when the text holds
    ///   no base64 certificate block. A block whose bytes are not a valid
    ///   certificate is found by the transport, which then fails every HTTPS
    ///   request with the same reason.
    public func trusting(rootCertificatePEM pem: String) throws(NetworkError) -> ServerTrust {
        let certificates = Self.derCertificates(inPEM: pem)
        guard !certificates.isEmpty else {
            throw .serverTrustFailed(ServerTrustFailure(host: "", reason: .invalidCertificate))
        }
        return certificates.reduce(self) { $0.trusting(rootCertificate: $1) }
    }

    /// This trust plus pins for `host`: its verified chain must contain at
    /// least one of them.
    ///
    /// Pinning a host again adds to its pins. A host that could never match
    /// a URL's host is refused here, rather than leaving the pin unused: a
    /// port (`api.example.com:443`), a scheme or path (a whole URL), user
    /// information, spaces, or characters other than ASCII (give an
    /// international name in its `xn--` form).
    /// - Parameters:
    ///   - host: The host name or IP address, as it appears in URLs.
    ///   - pin: A pin.
    ///   - more: Further pins (a backup key, the next authority).
    /// - Returns: The new trust.
    /// - Throws: ``NetworkError/serverTrustFailed(_:)`` with
    ///   ``ServerTrustFailure/Reason/invalidPinHost(_:)``.
    public func pinning(_ host: String, to pin: CertificatePin, _ more: CertificatePin...) throws(NetworkError) -> ServerTrust {
        let normalized = Self.normalizedHost(host)
        guard Self.isPinnableHost(normalized) else {
            throw .serverTrustFailed(ServerTrustFailure(host: "", reason: .invalidPinHost(host)))
        }
        var trust = self
        trust.pins[normalized, default: []].formUnion([pin] + more)
        return trust
    }

    /// Whether a normalised host can be a URL's host: letters, digits,
    /// hyphens and dots (a name or an IPv4 address), or an IPv6 address
    /// (hexadecimal digits, colons, at least two of them, and dots).
    private static func isPinnableHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(\.isASCII) else { return false }
        let isName = host.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        let isIPv6 = host.utf8.filter { $0 == UInt8(ascii: ":") }.count >= 2
            && host.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            }
        return isName || isIPv6
    }

    /// The pins of `host`, or `nil` when it is not pinned.
    /// - Parameter host: A host name, in any case.
    /// - Returns: Its pins.
    public func pins(for host: String) -> Set<CertificatePin>? {
        pins[Self.normalizedHost(host)]
    }

    /// A host as pins are stored and looked up: in lower case, without a
    /// trailing dot or the brackets of an IPv6 address, so `API.example.com.`
    /// and `api.example.com` are one host.
    /// - Parameter host: A host as it appears in a URL.
    /// - Returns: The normalised host.
    public static func normalizedHost(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }

    /// The DER bytes of each `BEGIN CERTIFICATE` block of a PEM text.
    /// - Parameter pem: The PEM text.
    /// - Returns: The certificates, in order; blocks that are not base64 are
    ///   left out.
    public static func derCertificates(inPEM pem: String) -> [Data] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var certificates: [Data] = []
        var rest = pem[...]
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            if let der = Data(base64Encoded: String(body)), !der.isEmpty {
                certificates.append(der)
            }
            rest = rest[stop.upperBound...]
        }
        return certificates
    }
}

/// Something a pinned server's certificate chain must contain.
public enum CertificatePin: Sendable, Hashable {
    /// This certificate (DER), trusted as a root for the host.
    /// `AsyncHTTPClientTransport` can pin only a root or a self-signed
    /// certificate this way: it becomes the one root trusted for the host.
    /// `URLSessionTransport` on Apple platforms matches it anywhere in the chain.
    case certificate(Data)
    /// A certificate whose public key hashes to this: the SHA-256 of its
    /// DER SubjectPublicKeyInfo, base64-encoded (what
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    /// prints). Survives a renewal that keeps the key. Honoured by
    /// `URLSessionTransport` on Apple platforms, for RSA keys and the P-256,
    /// P-384 and P-521 curves.
    case publicKeySHA256(String)
}
