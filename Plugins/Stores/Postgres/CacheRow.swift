import Courier
import CourierCache
import Crypto
import Foundation
import Logging
import PostgresNIO

/// One row of `courier_cache`, and the statements on that table.
struct CacheRow: Sendable {
    var digest: Data
    var status: Int
    var headers: Data
    var body: Data
    var bodyLength: Int
    var url: String?
    var storedAt: Double
    var expiresAt: Double?
    var vary: Data
    var size: Int

    /// The row's primary key, so no key is stored: the SHA-256 of the key,
    /// or with a fleet key its keyed hash (HMAC-SHA256), which nobody without
    /// the fleet key can test a guessed URL or user against.
    static func digest(of key: String, fleetKey: FleetKey?) -> Data {
        fleetKey?.digest(ofCacheKey: key) ?? Data(SHA256.hash(data: Data(key.utf8)))
    }

    /// The row for `entry` under `key`; `nil` when its fields cannot be
    /// encoded. With a fleet key the body is sealed, with every other column
    /// a hit reads bound to it.
    init?(_ entry: CachedResponse, key: String, fleetKey: FleetKey?) {
        guard let headers = try? JSONEncoder().encode(entry.headers),
              let vary = try? JSONEncoder().encode(entry.varyValues),
              entry.body.count <= Int(Int32.max), (0...Int(Int32.max)).contains(entry.statusCode)
        else { return nil }
        self.digest = Self.digest(of: key, fleetKey: fleetKey)
        self.status = entry.statusCode
        self.headers = headers
        self.body = entry.body
        self.bodyLength = entry.body.count
        // As the disk cache keeps it: no query, fragment or user information.
        self.url = entry.url.flatMap(URLRedactor.removingSecrets(from:))?.absoluteString
        self.storedAt = entry.storedAt.timeIntervalSince1970
        self.expiresAt = entry.expiresAt?.timeIntervalSince1970
        self.vary = vary
        self.size = entry.cost
        if let fleetKey {
            guard let sealed = fleetKey.sealed(entry.body, context: sealContext) else { return nil }
            self.body = sealed
        }
    }

    private init(digest: Data, status: Int, headers: Data, body: Data, bodyLength: Int, url: String?,
                 storedAt: Double, expiresAt: Double?, vary: Data) {
        self.digest = digest
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyLength = bodyLength
        self.url = url
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.vary = vary
        self.size = 0
    }

    /// The entry this row holds for `key`, or `nil` when the row is bad: a
    /// body shorter or longer than recorded, header fields or `Vary` values
    /// that do not decode, a status or a date that is not one; with a fleet
    /// key, a body that does not open with the other columns as they are
    /// (a row written without the key or under another, or changed).
    func entry(key: String, fleetKey: FleetKey?) -> CachedResponse? {
        var body = self.body
        if let fleetKey {
            guard let opened = fleetKey.opened(body, context: sealContext) else { return nil }
            body = opened
        }
        guard body.count == bodyLength, (100...999).contains(status), storedAt.isFinite,
              expiresAt?.isFinite ?? true,
              let headers = Self.fields(headers), let vary = Self.fields(vary)
        else { return nil }
        return CachedResponse(
            key: key, statusCode: status, headers: headers, body: body, url: url.flatMap { URL(string: $0) },
            storedAt: Date(timeIntervalSince1970: storedAt), expiresAt: expiresAt.map { Date(timeIntervalSince1970: $0) },
            varyValues: vary
        )
    }

    /// Every column a hit reads but the body, bound to the sealed body.
    private var sealContext: Data {
        var context = SealContext("courier_cache")
        context.append(digest)
        context.append(String(status))
        context.append(headers)
        context.append(String(bodyLength))
        context.append(url ?? "")
        context.append(url == nil ? "no url" : "url")
        context.append(storedAt)
        context.append(expiresAt)
        context.append(vary)
        return context.bytes
    }

    /// Header fields or `Vary` values from their JSON, `nil` when it does not
    /// decode. Most entries vary on nothing: `{}` is read without a decoder.
    private static func fields(_ json: Data) -> [String: String]? {
        if json.elementsEqual("{}".utf8) { return [:] }
        return try? decoder.decode([String: String].self, from: json)
    }

    /// One decoder for every hit, not two made for each.
    private static let decoder = JSONDecoder()

    // MARK: - Statements

    /// The statement of a hit: it marks the row used and returns it, in one
    /// round trip. The benchmark runs the same text through postgres-nio.
    static func readQuery(digest: Data, now: Double) -> PostgresQuery {
        """
        UPDATE courier_cache SET used_at = \(now) WHERE key_digest = \(ByteBuffer(bytes: digest)) \
        AND (expires_at IS NULL OR expires_at > \(now)) \
        RETURNING status, headers, body, body_length, url, stored_at, expires_at, vary
        """
    }

    static func read(digest: Data, now: Double, client: PostgresClient, logger: Logger) async throws -> CacheRow? {
        let rows = try await client.query(readQuery(digest: digest, now: now), logger: logger)
        var found: CacheRow?
        for try await row in rows {
            // A column of an unexpected type is a bad row, not an error.
            guard let (status, headers, body, length, url, storedAt, expiresAt, vary) = try? row.decode(
                (Int32, Data, Data, Int32, String?, Double, Double?, Data).self
            ) else { continue }
            found = CacheRow(digest: digest, status: Int(status), headers: headers, body: body, bodyLength: Int(length),
                             url: url, storedAt: storedAt, expiresAt: expiresAt, vary: vary)
        }
        return found
    }

    static func write(_ row: CacheRow, now: Double, client: PostgresClient, logger: Logger) async throws {
        try await client.query(
            """
            INSERT INTO courier_cache (key_digest, status, headers, body, body_length, url, stored_at, expires_at, vary, size, used_at)
            VALUES (\(ByteBuffer(bytes: row.digest)), \(Int32(row.status)), \(ByteBuffer(bytes: row.headers)), \(ByteBuffer(bytes: row.body)), \(Int32(row.bodyLength)), \(row.url), \
            \(row.storedAt), \(row.expiresAt), \(ByteBuffer(bytes: row.vary)), \(Int64(row.size)), \(now))
            ON CONFLICT (key_digest) DO UPDATE SET status = EXCLUDED.status, headers = EXCLUDED.headers,
                body = EXCLUDED.body, body_length = EXCLUDED.body_length, url = EXCLUDED.url,
                stored_at = EXCLUDED.stored_at, expires_at = EXCLUDED.expires_at, vary = EXCLUDED.vary,
                size = EXCLUDED.size, used_at = EXCLUDED.used_at
            """,
            logger: logger
        )
    }

    /// Deletes expired rows and the least recently used ones past `limit`
    /// bytes, in one statement: a running total of the sizes of the rows
    /// that have not expired, most recently used first, and every row whose
    /// total passes the limit goes. Expired rows do not count towards the
    /// total, so a row that is going anyway never pushes a live one out.
    static func trim(toSize limit: Int, now: Double, client: PostgresClient, logger: Logger) async throws {
        try await client.query(
            """
            DELETE FROM courier_cache WHERE (expires_at IS NOT NULL AND expires_at <= \(now)) OR key_digest IN (
                SELECT key_digest FROM (
                    SELECT key_digest, sum(size) OVER (ORDER BY used_at DESC, key_digest) AS running FROM courier_cache
                    WHERE expires_at IS NULL OR expires_at > \(now)
                ) AS ranked WHERE running > \(Int64(limit))
            )
            """,
            logger: logger
        )
    }

    static func delete(digest: Data, client: PostgresClient, logger: Logger) async throws {
        try await client.query("DELETE FROM courier_cache WHERE key_digest = \(ByteBuffer(bytes: digest))", logger: logger)
    }

    static func deleteAll(client: PostgresClient, logger: Logger) async throws {
        try await client.query("DELETE FROM courier_cache", logger: logger)
    }
}
