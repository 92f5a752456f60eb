import CourierAuth
import CourierFleetSupport
import CourierLoopback
import CourierPostgres
import CourierTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What every fleet test starts from: a PostgreSQL holding the token server's
/// first credential, already expired, and the token server.
struct Fleet {
    let postgres: TemporaryPostgres
    let tokens: RotatingTokenServer
    /// The fleet key the workers get (as `COURIER_FLEET_KEY`), if any.
    var fleetKey: String?

    /// Starts `count` workers (the Fleet example in worker mode), waits until
    /// each is ready and tells them to go.
    func go(_ count: Int, requests: Int, scenario: String = "run", refreshTimeout: TimeInterval = 60) async throws -> [WorkerProcess] {
        let executable = try WorkerProcess.fleetExecutable()
        let workers = try (0..<count).map { _ in
            try WorkerProcess(executable: executable, arguments: [
                "--worker", "--database", postgres.connectionString, "--server", tokens.server.baseURL.absoluteString,
                "--requests", String(requests), "--scenario", scenario, "--refresh-timeout", String(refreshTimeout),
            ], environment: fleetKey.map { ["COURIER_FLEET_KEY": $0] } ?? [:])
        }
        for worker in workers { try await worker.waitForLine(startingWith: "ready", within: 60) }
        for worker in workers { worker.send("go") }
        return workers
    }
}

func withFleet(refreshDelay: TimeInterval, fleetKey: String? = nil, _ body: (Fleet) async throws -> Void) async throws {
    try await withTemporaryPostgres { postgres in
        try await withServer { server in
            try await withStorage(postgres, fleetKey: try fleetKey.map { try FleetKey(base64: $0) }) { storage in
                // The name the Fleet example's workers give their store.
                try await PostgresCredentialStore(storage: storage, name: "fleet-example").persist(expiredCredential)
            }
            try await body(Fleet(postgres: postgres, tokens: RotatingTokenServer(server: server, refreshDelay: refreshDelay),
                                 fleetKey: fleetKey))
        }
    }
}

/// What a worker prints when it got the first refreshed token with no error
/// and nobody signed it out.
let renewedAndSignedIn = "token=access-1 errors=0 signedOut=false"

extension PostgresTests {
    /// Separate OS processes sharing one credential in a real PostgreSQL.
    @Suite
    struct FleetRefreshTests {
        /// Eight processes whose token expired together make one refresh;
        /// with a fleet key too, where every write compares sealed tokens.
        @Test(arguments: [false, true])
        func eightProcessesWhoseTokensExpireTogetherRefreshOnce(sealed: Bool) async throws {
            let key = sealed ? FleetKey.generate() : nil
            try await withFleet(refreshDelay: 0.3, fleetKey: key) { fleet in
                let workers = try await fleet.go(8, requests: 3)
                defer { workers.forEach { $0.signal(SIGKILL) } }
                for worker in workers {
                    let result = try await worker.waitForLine(startingWith: "result", within: 120)
                    #expect(result == renewedAndSignedIn, "\(worker.errorOutput)")
                    #expect(try await worker.waitForExit(within: 30) == 0)
                }
                #expect(fleet.tokens.refreshes == 1)
                #expect(fleet.tokens.refusedRefreshes == 0)
                try await withStorage(fleet.postgres, fleetKey: try key.map { try FleetKey(base64: $0) }) { storage in
                    let store = PostgresCredentialStore(storage: storage, name: "fleet-example")
                    try await store.reload()
                    #expect(store.accessToken == "access-1")
                    #expect(store.refreshToken == "refresh-1")
                    let stored = try await integers("SELECT count(*)::bigint FROM courier_credentials WHERE access_token = 'access-1'",
                                                    on: storage)
                    #expect(stored == [sealed ? 0 : 1], "the token is in clear only without a key")
                }
            }
        }

        @Test func aProcessKilledWhileHoldingTheLockLetsAnotherRefresh() async throws {
            try await withFleet(refreshDelay: 0) { fleet in
                let holder = try await fleet.go(1, requests: 1, scenario: "hold")[0]
                defer { holder.signal(SIGKILL) }
                try await holder.waitForLine(startingWith: "holding", within: 30)
                let waiter = try await fleet.go(1, requests: 1)[0]
                defer { waiter.signal(SIGKILL) }
                // The waiter is queued on the row the holder has locked.
                try await withStorage(fleet.postgres) { storage in
                    let queued = try await eventually(within: 30) {
                        try await integers("SELECT count(*)::bigint FROM pg_locks WHERE NOT granted", on: storage) == [1]
                    }
                    #expect(queued)
                }

                let killed = Date()
                holder.signal(SIGKILL)
                let result = try await waiter.waitForLine(startingWith: "result", within: 30)
                let seconds = Date().timeIntervalSince(killed)
                print("refresh after SIGKILL of the lock holder: \(String(format: "%.3f", seconds)) s")
                #expect(seconds < 5)
                #expect(result == renewedAndSignedIn, "\(waiter.errorOutput)")
                #expect(fleet.tokens.refreshes == 1)
            }
        }

        /// A holder that stops (SIGSTOP: a frozen host) cannot answer, so its
        /// refresh time-out never fires in it. While it waits on the identity
        /// provider a live holder keeps its session busy; a stopped one goes
        /// silent, and PostgreSQL ends its session after the lease (10 s,
        /// where its refresh time-out is 30 s), and the row's lock goes with
        /// it. The waiter waits for the lock at most 20 s, so it refreshes
        /// only if the lock goes before the holder's own time-out would have
        /// ended it (31 s before the lease).
        @Test func aProcessStoppedWhileHoldingTheLockLosesItWithinItsLease() async throws {
            try await withFleet(refreshDelay: 0) { fleet in
                let holder = try await fleet.go(1, requests: 1, scenario: "hold", refreshTimeout: 30)[0]
                defer { holder.signal(SIGKILL) }
                try await holder.waitForLine(startingWith: "holding", within: 30)
                holder.signal(SIGSTOP)
                let stopped = Date()
                let waiter = try await fleet.go(1, requests: 1, refreshTimeout: 20)[0]
                defer { waiter.signal(SIGKILL) }
                let result = try await waiter.waitForLine(startingWith: "result", within: 60)
                let seconds = Date().timeIntervalSince(stopped)
                print("refresh after SIGSTOP of the lock holder (its refresh time-out 30 s): \(String(format: "%.3f", seconds)) s")
                // The lease is 10 s; without it the lock would have outlived
                // the holder by 31 s, past the waiter's 20 s wait.
                #expect(seconds < 25)
                #expect(result == renewedAndSignedIn, "\(waiter.errorOutput)")
                #expect(fleet.tokens.refreshes == 1)
            }
        }

        /// A holder that is alive but whose identity provider is slow keeps
        /// the lock past its lease: its session is kept busy, so PostgreSQL
        /// does not end it, and the fleet makes one refresh, not two.
        @Test func aLiveHolderWithASlowIdentityProviderKeepsTheLockPastItsLease() async throws {
            try await withFleet(refreshDelay: 12) { fleet in
                let workers = try await fleet.go(2, requests: 1, refreshTimeout: 30)
                defer { workers.forEach { $0.signal(SIGKILL) } }
                for worker in workers {
                    let result = try await worker.waitForLine(startingWith: "result", within: 90)
                    #expect(result == renewedAndSignedIn, "\(worker.errorOutput)")
                }
                #expect(fleet.tokens.refreshes == 1)
                #expect(fleet.tokens.refusedRefreshes == 0)
            }
        }

        @Test func aResponseCachedByOneProcessIsAHitInAnother() async throws {
            try await withFleet(refreshDelay: 0) { fleet in
                for round in 1...2 {
                    let worker = try await fleet.go(1, requests: 4)[0]
                    let result = try await worker.waitForLine(startingWith: "result", within: 60)
                    #expect(result == renewedAndSignedIn, "round \(round): \(worker.errorOutput)")
                    try await worker.waitForExit(within: 30)
                }
                // The second process found all four responses the first stored.
                #expect(fleet.tokens.dataRequests == 4)
                #expect(fleet.tokens.refreshes == 1)
            }
        }
    }
}
