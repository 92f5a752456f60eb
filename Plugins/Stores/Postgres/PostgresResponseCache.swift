import Courier
import CourierCache
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// A `ResponseCaching` store in PostgreSQL, shared by every process of a
/// fleet: a response one process stored is a hit in all of them.
///
/// Entries are keyed by a hash of the key that `CacheKey` makes
/// (method, URL, body hash, the hash of the `Authorization` header and the
/// `Vary` values): entries of different credentials never share a row, and
/// neither the key, the query nor a token is stored in clear (the URL is kept
/// without its query). Without a ``FleetKey`` these are plain SHA-256:
/// whoever can read the table can test a guessed password or token against
/// them, and whoever can write it can plant an answer, so grant it to the
/// fleet's role only. With one, rows are named by an HMAC-SHA256 under the
/// key, and each body is sealed (AES-GCM) with every other column a hit
/// reads bound to it: a row changed in the table is a miss, never served.
/// A row holds the
/// status, the header fields and the body, the expiry, and when it was last
/// used: past ``Configuration-swift.struct/sizeLimit`` the least recently
/// used rows go. The table is unlogged: fast, and emptied by a database
/// crash, which a cache can afford.
///
/// The cache never fails its caller and never makes it wait long:
/// - A read waits at most ``Configuration-swift.struct/timeout`` and is a
///   miss when the database is down, slow, or holds a row that does not
///   decode (a body cut short, a header blob that is not JSON, a schema of
///   another version); a bad row is deleted.
/// - ``store(_:forKey:)`` returns at once: the row is written in the
///   background, in order, and dropped when the database is away or
///   ``Configuration-swift.struct/maximumPendingWrites`` are waiting.
/// - After a failure, calls are misses without trying for
///   ``Configuration-swift.struct/retryInterval``; then one call tries again,
///   so the cache comes back by itself when the database does.
///
/// ```swift
/// let storage = try PostgresStorage(connectionString: databaseURL)
/// let cache = PostgresResponseCache(storage: storage, configuration: .init(sizeLimit: 256 << 20))
/// let provider = Provider<API>(plugins: [CachePlugin(storage: cache)])
/// ```
///
/// `ResponseCaching` is synchronous, so a read blocks its thread for at most
/// the time-out while the query runs on threads of the cache's own.
public final class PostgresResponseCache: ResponseCaching {
    /// The database the rows live in.
    public let storage: PostgresStorage
    /// The limits and time-outs.
    public let configuration: Configuration

    private let availability: NIOLockedValueBox<Availability>
    private let writes: WriteQueue
    /// Where its database work runs, off the cooperative pool its callers may block.
    private let executor = OffPoolExecutor()

    /// Creates a cache on `storage`; the table is created on first use.
    /// - Parameters:
    ///   - storage: The database, which must be running.
    ///   - configuration: The limits and time-outs.
    public init(storage: PostgresStorage, configuration: Configuration = Configuration()) {
        self.storage = storage
        self.configuration = configuration
        self.availability = NIOLockedValueBox(Availability(pause: configuration.retryInterval.timeInterval))
        self.writes = WriteQueue(limit: configuration.maximumPendingWrites) { _ in }
    }

    // MARK: - ResponseCaching

    /// The entry for `key`, or `nil` when there is none, it has expired, its
    /// row is bad, or the database did not answer within the time-out.
    public func entry(forKey key: String) -> CachedResponse? {
        let digest = CacheRow.digest(of: key, fleetKey: storage.fleetKey)
        let now = configuration.clock().timeIntervalSince1970
        let row = attempt { [storage] in
            try await storage.prepareSchema()
            return try await CacheRow.read(digest: digest, now: now, client: storage.client, logger: storage.logger)
        }
        guard let row = row ?? nil else { return nil }
        guard let entry = row.entry(key: key, fleetKey: storage.fleetKey) else {
            enqueueWrite { [storage] in try await CacheRow.delete(digest: digest, client: storage.client, logger: storage.logger) }
            return nil
        }
        return entry
    }

    /// Writes `entry` in the background, then trims the table to the size
    /// limit; an entry larger than the limit is not stored.
    public func store(_ entry: CachedResponse, forKey key: String) {
        var entry = entry
        if entry.expiresAt == nil, let lifetime = configuration.defaultLifetime {
            entry.expiresAt = entry.storedAt.addingTimeInterval(lifetime)
        }
        guard entry.cost <= configuration.sizeLimit, let row = CacheRow(entry, key: key, fleetKey: storage.fleetKey) else { return }
        let now = configuration.clock().timeIntervalSince1970
        let limit = configuration.sizeLimit
        enqueueWrite { [storage] in
            try await CacheRow.write(row, now: now, client: storage.client, logger: storage.logger)
            try await CacheRow.trim(toSize: limit, now: now, client: storage.client, logger: storage.logger)
        }
    }

    /// Deletes the entry for `key`, waiting at most the time-out.
    public func removeEntry(forKey key: String) {
        let digest = CacheRow.digest(of: key, fleetKey: storage.fleetKey)
        _ = attempt { [storage] in
            try await storage.prepareSchema()
            try await CacheRow.delete(digest: digest, client: storage.client, logger: storage.logger)
        }
    }

    /// Deletes every entry, for every process, waiting at most the time-out.
    public func removeAll() {
        _ = attempt { [storage] in
            try await storage.prepareSchema()
            try await CacheRow.deleteAll(client: storage.client, logger: storage.logger)
        }
    }

    /// Returns once every background write queued so far has finished or
    /// been dropped.
    public func waitForPendingWrites() async {
        await writes.waitUntilDone()
    }

    // MARK: - Never failing, never waiting long

    /// Runs `work` against the database unless it is resting, waiting at most
    /// the time-out; `nil` for a failure, a time-out or a rest.
    private func attempt<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Value? {
        guard availability.withLockedValue({ $0.mayTry(now: Self.uptime()) }) else { return nil }
        switch executor.wait(atMost: configuration.timeout, work) {
        case .finished(let value):
            availability.withLockedValue { $0.succeeded() }
            return value
        case .failed(let error) where error is PostgresStorageError:
            // Another schema version: not an outage, so no rest either.
            availability.withLockedValue { $0.succeeded() }
            return nil
        case .failed, .timedOut:
            availability.withLockedValue { $0.failed(now: Self.uptime()) }
            return nil
        }
    }

    private func enqueueWrite(_ write: @escaping @Sendable () async throws -> Void) {
        guard availability.withLockedValue({ $0.allows(now: Self.uptime()) }) else { return }
        let timeout = configuration.writeTimeout
        writes.enqueue { [availability, storage] in
            do {
                try await Deadline.run(within: timeout.timeInterval, timeout: { CancellationError() }) {
                    try await storage.prepareSchema()
                    try await write()
                }
                availability.withLockedValue { $0.succeeded() }
            } catch is PostgresStorageError {
                availability.withLockedValue { $0.succeeded() }
            } catch {
                availability.withLockedValue { $0.failed(now: Self.uptime()) }
            }
        }
    }

    private static func uptime() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
