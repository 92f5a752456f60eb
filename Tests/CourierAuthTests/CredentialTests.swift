import Courier
import CourierAuth
import CourierTestSupport
import Foundation
import Testing

struct CredentialTests {
    private let credential = Credential(accessToken: "access-secret", refreshToken: "refresh-secret", expiresIn: 60)

    @Test func printingNeverShowsTheTokens() {
        var dumped = ""
        dump(credential, to: &dumped)
        for text in ["\(credential)", String(reflecting: credential), dumped, "\([credential])"] {
            #expect(!text.contains("secret"), "\(text)")
            #expect(text.contains("<redacted, 13 characters>"), "\(text)")
        }
    }

    @Test func expiryCountsTheLeeway() {
        let now = Date(timeIntervalSince1970: 1_000)
        // No issue date: the lifetime is unknown, so the leeway is used whole.
        let expiring = Credential(accessToken: "a", expiresAt: now.addingTimeInterval(60))

        #expect(!expiring.isExpired(at: now))
        #expect(!expiring.isExpired(at: now, leeway: 59))
        #expect(expiring.isExpired(at: now, leeway: 60))
        #expect(expiring.isExpired(at: now.addingTimeInterval(60)))
        #expect(!Credential(accessToken: "a").isExpired(at: .distantFuture))
    }

    @Test func aKnownLifetimeCapsTheLeewayAtHalfOfIt() {
        let now = Date(timeIntervalSince1970: 1_000)
        let shortLived = Credential(accessToken: "a", expiresIn: 20, now: now)

        #expect(!shortLived.isExpired(at: now, leeway: 30), "not expired at birth")
        #expect(!shortLived.isExpired(at: now.addingTimeInterval(9), leeway: 30))
        #expect(shortLived.isExpired(at: now.addingTimeInterval(10), leeway: 30))
    }

    @Test func roundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(credential)
        #expect(try JSONDecoder().decode(Credential.self, from: data) == credential)
    }

    @Test func theInMemoryStoreKeepsTheRefreshTokenWhenAnUpdateHasNone() throws {
        let store = InMemoryCredentialStore()
        #expect(store.isExpired())

        store.save(Credential(accessToken: "a1", refreshToken: "r1"))
        try store.update(token: "a2", expiresIn: 3600)

        #expect(store.accessToken == "a2")
        #expect(store.refreshToken == "r1")
        #expect(!store.isExpired())
        store.clear()
        #expect(store.credential == nil)
    }
}
