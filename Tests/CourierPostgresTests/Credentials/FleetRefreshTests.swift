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

    /// Starts `count` workers (the Fleet example in worker mode), waits until
    /// each is ready and tells them to go.
    func go(_ count: Int, requests: Int, scenario: String = "run", refreshTimeout: TimeInterval = 60) async throws -> [WorkerProcess] {
        let executable = try WorkerProcess.fleetExecutable()
        let workers = try (0..<count).map { _ in
            try WorkerProcess(executable: executable, arguments: [
                "--worker", "--database", postgres.connectionString, "--server", tokens.server.baseURL.absoluteString,
                "--requests", String(requests), "--scenario", scenario, "--refresh-timeout", String(refreshTimeout),
            ])
        }
        for worker in workers { try await worker.waitForLine(startingWith: "ready", within: 60) }
        for worker in workers { worker.send("go") }
        return workers
    }
}

func withFleet(refreshDelay: TimeInterval, _ body: (Fleet) async throws -> Void) async throws {
    try await withTemporaryPostgres { postgres in
        try await withServer { server in
            try await withStorage(postgres) { storage in
                // The name the Fleet example's workers give their store.
                try await PostgresCredentialStore(storage: storage, name: "fleet-example").persist(expiredCredential)
            }
            try await body(Fleet(postgres: postgres, tokens: RotatingTokenServer(server: server, refreshDelay: refreshDelay)))
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
        @Test func eightProcessesWhoseTokensExpireTogetherRefreshOnce() async throws {
            try await withFleet(refreshDelay: 0.3) { fleet in
                let workers = try await fleet.go(8, requests: 3)
                defer { workers.forEach { $0.signal(SIGKILL) } }
                for worker in workers {
                    let result = try await worker.waitForLine(startingWith: "result", within: 120)
                    #expect(result == renewedAndSignedIn, "\(worker.errorOutput)")
                    #expect(try await worker.waitForExit(within: 30) == 0)
                }
                #expect(fleet.tokens.refreshes == 1)
                #expect(fleet.tokens.refusedRefreshes == 0)
                try await withStorage(fleet.postgres) { storage in
                    let store = PostgresCredentialStore(storage: storage, name: "fleet-example")
                    try await store.reload()
                    #expect(store.accessToken == "access-1")
                    #expect(store.refreshToken == "refresh-1")
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
        /// refresh time-out never fires in it; PostgreSQL ends its idle
        /// session after that time-out and a second, and the row's lock goes
        /// with it, so a waiter that may wait longer refreshes.
        @Test func aProcessStoppedWhileHoldingTheLockLosesItAfterItsRefreshTimeout() async throws {
            try await withFleet(refreshDelay: 0) { fleet in
                let holder = try await fleet.go(1, requests: 1, scenario: "hold", refreshTimeout: 2)[0]
                defer { holder.signal(SIGKILL) }
                try await holder.waitForLine(startingWith: "holding", within: 30)
                holder.signal(SIGSTOP)
                let stopped = Date()
                let waiter = try await fleet.go(1, requests: 1, refreshTimeout: 20)[0]
                defer { waiter.signal(SIGKILL) }
                let result = try await waiter.waitForLine(startingWith: "result", within: 60)
                let seconds = Date().timeIntervalSince(stopped)
                print("refresh after SIGSTOP of the lock holder (its refresh time-out 2 s): \(String(format: "%.3f", seconds)) s")
                // 2 s and 1 s of idle allowance, then the waiter's refresh;
                // the waiter alone may wait up to 20 s, so this fails when
                // the lock outlives the stopped holder.
                #expect(seconds < 15)
                #expect(result == renewedAndSignedIn, "\(waiter.errorOutput)")
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
