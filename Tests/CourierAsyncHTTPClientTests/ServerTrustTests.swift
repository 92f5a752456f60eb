import Courier
import CourierTestSupport
import Foundation
import Testing

/// What a user sees when an HTTPS server's certificate is wrong, and the
/// trust settings: extra roots, pins, and a transport refusing a setting it
/// cannot honour. Every failure must come at once (the targets' time-out is
/// far away, so a hang shows as a time-out, not as a trust failure), and
/// nothing may reach the server.
///
/// Far away means 300 s: AsyncHTTPClient's diagnosis of a refused
/// certificate runs its handshakes as tasks, and in a run of the whole suite
/// under the thread sanitizer, with the cooperative pool busy with the
/// memory tests, two of them once did not finish within 60 s (they take
/// about a second alone under the sanitizer).
@Suite struct ServerTrustTests {
    static let testRoot = ServerTrust.system.trusting(rootCertificate: TestCertificates.rootDER)

    /// The trust failure of one request to a server presenting `certificate`.
    func trustFailure(_ kind: TransportKind, certificate: LoopbackTLS.Certificate,
                      trust: ServerTrust) async throws -> ServerTrustFailure? {
        try await kind.withProvider(tls: LoopbackTLS(certificate: certificate), serverTrust: trust) { provider, server in
            let error = await failure(of: TestTarget(server.baseURL, timeout: 300), on: provider)
            #expect(server.requests.isEmpty, "a request reached a server that was not trusted")
            guard case .serverTrustFailed(let failure) = error else {
                Issue.record("expected serverTrustFailed, got \(String(describing: error))")
                return nil
            }
            #expect(failure.host == "127.0.0.1")
            #expect(error?.description.contains(failure.description) == true)
            return failure
        }
    }

    // MARK: - Certificates a transport must refuse, each with its reason

    @Test(arguments: [
        (LoopbackTLS.Certificate.expired, ServerTrustFailure.Reason.expired),
        (.otherHost, .hostMismatch),
        (.selfSigned, .selfSigned),
        (.otherRoot, .untrustedRoot),
    ])
    func aBadCertificateIsRefusedWithItsReason(certificate: LoopbackTLS.Certificate,
                                               reason: ServerTrustFailure.Reason) async throws {
        for kind in TransportKind.trustingTestRoot {
            let failure = try await trustFailure(kind, certificate: certificate, trust: kind.testRootTrust)
            #expect(failure?.reason == reason, "\(kind)")
        }
    }

    @Test(arguments: TransportKind.networked)
    func anUnknownAuthorityIsNamedWithTheWayToTrustIt(kind: TransportKind) async throws {
        let failure = try await trustFailure(kind, certificate: .otherRoot, trust: .system)
        #expect(failure?.reason == .untrustedRoot)
        #expect(failure?.description.contains("ServerTrust.trusting(rootCertificate:)") == true)
    }

    @Test(arguments: TransportKind.networked)
    func aSelfSignedCertificateIsNamedSo(kind: TransportKind) async throws {
        let failure = try await trustFailure(kind, certificate: .selfSigned, trust: .system)
        #expect(failure?.reason == .selfSigned)
    }

    // MARK: - Trusting and pinning

    @Test(arguments: TransportKind.acceptingCustomTrust)
    func anAddedRootIsTrustedBesideTheSystems(kind: TransportKind) async throws {
        let trust = try ServerTrust.system.trusting(rootCertificatePEM: TestCertificates.rootPEM)
        try await kind.withProvider(tls: LoopbackTLS(), serverTrust: trust) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL))
            #expect(response.statusCode == 200)
        }
    }

    @Test(arguments: TransportKind.acceptingCustomTrust, [LoopbackTLS.Certificate.valid, .rotated])
    func aPinnedRootAcceptsEveryCertificateItIssues(kind: TransportKind, certificate: LoopbackTLS.Certificate) async throws {
        // The pin alone: no root is added, and the system's do not know it.
        let trust = try ServerTrust.system.pinning("127.0.0.1", to: .certificate(TestCertificates.rootDER))
        try await kind.withProvider(tls: LoopbackTLS(certificate: certificate), serverTrust: trust) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL))
            #expect(response.statusCode == 200)
        }
    }

    @Test(arguments: TransportKind.acceptingCustomTrust)
    func aChainWithoutThePinIsRefusedEvenFromATrustedRoot(kind: TransportKind) async throws {
        let trust = try Self.testRoot.pinning("127.0.0.1", to: .certificate(TestCertificates.otherRootDER))
        let failure = try await trustFailure(kind, certificate: .valid, trust: trust)
        #expect(failure?.reason == .pinMismatch)
    }

    @Test(arguments: TransportKind.acceptingCustomTrust)
    func aPinOnAnotherHostLeavesThisOneAlone(kind: TransportKind) async throws {
        let trust = try Self.testRoot.pinning("api.example.com", to: .certificate(TestCertificates.otherRootDER))
        try await kind.withProvider(tls: LoopbackTLS(), serverTrust: trust) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL))
            #expect(response.statusCode == 200)
        }
    }

    @Test(arguments: TransportKind.acceptingCustomTrust)
    func aHostSpelledOtherwiseIsStillPinned(kind: TransportKind) async throws {
        let trust = try kind.testRootTrust.pinning("LOCALHOST.", to: .certificate(TestCertificates.otherRootDER))
        try await kind.withProvider(tls: LoopbackTLS(), serverTrust: trust) { provider, server in
            let spelled = try #require(URL(string: "https://LocalHost:\(server.port)"))
            let error = await failure(of: TestTarget(spelled, timeout: 60), on: provider)
            guard case .serverTrustFailed(let failure) = error else {
                Issue.record("expected serverTrustFailed, got \(String(describing: error))")
                return
            }
            #expect(failure.reason == .pinMismatch)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func aRootThatIsNotACertificateFailsEveryHTTPSRequestBeforeConnecting() async throws {
        let trust = ServerTrust.system.trusting(rootCertificate: Data("not a certificate".utf8))
        let failure = try await trustFailure(.asyncHTTPClient, certificate: .valid, trust: trust)
        #expect(failure?.reason == .invalidCertificate)
        #expect(failure?.description.contains("not a DER or PEM certificate") == true)
    }

    @Test func hostsAreNormalisedForPins() {
        #expect(ServerTrust.normalizedHost("API.Example.com.") == "api.example.com")
        #expect(ServerTrust.normalizedHost("[::1]") == "::1")
        #expect(ServerTrust.normalizedHost(".") == ".")
    }

    @Test func pinsAddUpAndHostsIgnoreCase() throws {
        let trust = try ServerTrust.system
            .pinning("API.example.com", to: .publicKeySHA256("a"))
            .pinning("api.example.COM", to: .publicKeySHA256("b"), .certificate(Data([1])))
        #expect(trust.pins(for: "api.example.com") == [.publicKeySHA256("a"), .publicKeySHA256("b"), .certificate(Data([1]))])
        #expect(trust.pins(for: "example.com") == nil)
        #expect(ServerTrust.system.isSystemDefault)
        #expect(!trust.isSystemDefault)
    }

    /// A pin on a host no URL can have would never be checked: it is
    /// refused when configured, not left to fail open.
    @Test(arguments: ["api.example.com:443", "https://api.example.com", "api.example.com/v1", "user@api.example.com",
                      "bücher.example", "api example.com", "", "[::1]:443"])
    func aPinOnAHostThatCanNeverMatchIsRefused(host: String) {
        #expect {
            _ = try ServerTrust.system.pinning(host, to: .certificate(TestCertificates.rootDER))
        } throws: { error in
            guard case .serverTrustFailed(let failure) = error as? NetworkError,
                  failure.reason == .invalidPinHost(host) else { return false }
            return failure.description.contains("xn--")
        }
    }

    @Test(arguments: ["api.example.com", "API.Example.COM.", "127.0.0.1", "[::1]", "::ffff:127.0.0.1", "xn--bcher-kva.example"])
    func aPinOnAHostAsURLsCarryItIsAccepted(host: String) throws {
        let trust = try ServerTrust.system.pinning(host, to: .certificate(TestCertificates.rootDER))
        #expect(trust.pins(for: host) == [.certificate(TestCertificates.rootDER)])
    }

    @Test func aPEMWithoutACertificateIsRefused() {
        #expect(throws: NetworkError.self) { try ServerTrust.system.trusting(rootCertificatePEM: "not a certificate") }
        #expect(ServerTrust.derCertificates(inPEM: TestCertificates.rootPEM + "\n" + TestCertificates.rootPEM).count == 2)
    }

    // MARK: - Settings a transport cannot honour fail at once

    @Test func aPublicKeyPinIsRefusedByAsyncHTTPClientTransportBeforeConnecting() async throws {
        let trust = try Self.testRoot.pinning("127.0.0.1", to: .publicKeySHA256("47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="))
        let failure = try await trustFailure(.asyncHTTPClient, certificate: .valid, trust: trust)
        guard case .unsupportedSetting(let text) = failure?.reason else {
            Issue.record("expected unsupportedSetting, got \(String(describing: failure))")
            return
        }
        #expect(text.contains("URLSessionTransport"))
    }

    #if !canImport(Security)
    @Test(arguments: try [
        ServerTrust.system.trusting(rootCertificate: TestCertificates.rootDER),
        ServerTrust.system.pinning("127.0.0.1", to: .certificate(TestCertificates.rootDER)),
    ])
    func urlSessionOnLinuxRefusesCustomTrustAtOnceAndSaysWhatToDo(trust: ServerTrust) async throws {
        let failure = try await trustFailure(.urlSession, certificate: .valid, trust: trust)
        guard case .unsupportedSetting(let text) = failure?.reason else {
            Issue.record("expected unsupportedSetting, got \(String(describing: failure))")
            return
        }
        // What to do, without the core naming one of the products.
        #expect(text.contains("Use a transport that evaluates trust itself"))
        #expect(!text.contains("AsyncHTTPClient"))
    }

    @Test func urlSessionOnLinuxStillSendsPlainHTTPWithCustomTrust() async throws {
        try await TransportKind.urlSession.withProvider(serverTrust: Self.testRoot) { provider, server in
            let response = try await provider.request(TestTarget(server.baseURL))
            #expect(response.statusCode == 200)
        }
    }
    #endif
}
