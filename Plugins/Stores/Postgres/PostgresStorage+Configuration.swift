import Foundation
import PostgresNIO

extension PostgresStorage {
    /// Where the database is, and how many connections the pool may open.
    public struct Configuration: Sendable {
        /// postgres-nio's client configuration: host or Unix socket, user,
        /// password, database, TLS and the pool's options.
        public var client: PostgresClient.Configuration

        /// Wraps a postgres-nio configuration.
        /// - Parameters:
        ///   - client: The client configuration.
        ///   - maximumConnections: The most connections the pool opens,
        ///     replacing `client.options.maximumConnections` (at least 1).
        public init(client: PostgresClient.Configuration, maximumConnections: Int = 8) {
            self.client = client
            self.client.options.maximumConnections = max(1, maximumConnections)
        }

        /// Reads a connection string:
        /// `postgres://user:password@host:port/database?sslmode=disable`.
        ///
        /// - The scheme is `postgres` or `postgresql`; the port defaults to
        ///   5432 and the database to the user's name.
        /// - A host that starts with `/` (percent-encoded in the authority,
        ///   or as a `host=` query item) is the directory of a Unix socket,
        ///   as with libpq: `postgres://courier@%2Fvar%2Frun%2Fpostgresql/courier`.
        /// - `sslmode` is `disable`, `prefer` (the default) or `require`;
        ///   both of the latter verify the server's certificate.
        /// - Parameters:
        ///   - connectionString: The URL.
        ///   - maximumConnections: The most connections the pool opens.
        /// - Throws: ``PostgresStorageError/invalidConnectionString(_:)``
        ///   saying what is wrong (never the password).
        public init(connectionString: String, maximumConnections: Int = 8) throws(PostgresStorageError) {
            guard let components = URLComponents(string: connectionString),
                  let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
            else {
                throw .invalidConnectionString("it is not a postgres:// URL")
            }
            let items = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
            guard let user = components.user.flatMap({ $0.removingPercentEncoding }) ?? items["user"], !user.isEmpty else {
                throw .invalidConnectionString("it names no user")
            }
            let password = components.password.flatMap { $0.removingPercentEncoding } ?? items["password"]
            let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            let database = path.isEmpty ? user : (path.removingPercentEncoding ?? path)
            let host = items["host"] ?? components.percentEncodedHost.flatMap { $0.removingPercentEncoding } ?? ""
            let port = components.port ?? items["port"].flatMap { Int($0) } ?? 5432
            guard (1...65_535).contains(port) else { throw .invalidConnectionString("the port is not 1 to 65535") }

            var client: PostgresClient.Configuration
            if host.hasPrefix("/") {
                let socket = host.hasSuffix(".s.PGSQL.\(port)") ? host : "\(host)/.s.PGSQL.\(port)"
                client = .init(unixSocketPath: socket, username: user, password: password, database: database)
            } else {
                let tls: PostgresClient.Configuration.TLS
                switch items["sslmode"] ?? "prefer" {
                case "disable": tls = .disable
                case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
                case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
                case let other: throw .invalidConnectionString("sslmode \(other) is not disable, prefer or require")
                }
                client = .init(host: host.isEmpty ? "localhost" : host, port: port, username: user, password: password,
                               database: database, tls: tls)
            }
            self.init(client: client, maximumConnections: maximumConnections)
        }
    }
}
