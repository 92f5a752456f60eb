import Foundation
import NIOSSL
import PostgresNIO

extension PostgresStorage {
    /// Where the database is, and how many connections the pool may open.
    public struct Configuration: Sendable {
        /// postgres-nio's client configuration: host or Unix socket, user,
        /// password, database, TLS and the pool's options.
        public var client: PostgresClient.Configuration
        /// The schema that holds Courier's tables, `public` unless given: every
        /// session's `search_path` is set to it alone when it connects, so no
        /// table another role creates in a schema searched earlier (such as
        /// one named after the fleet's role) can stand in for Courier's.
        public var schema: String = "public"
        /// The secret that seals tokens and cache rows, the same in every
        /// process of the fleet; `nil` (the default) keeps them in clear. See
        /// ``FleetKey``.
        public var fleetKey: FleetKey?

        /// Wraps a postgres-nio configuration.
        /// - Parameters:
        ///   - client: The client configuration.
        ///   - maximumConnections: The most connections the pool opens,
        ///     replacing `client.options.maximumConnections` (at least 1).
        public init(client: PostgresClient.Configuration, maximumConnections: Int = 8) {
            self.client = client
            self.client.options.maximumConnections = max(1, maximumConnections)
        }

        /// Why this configuration can be downgraded to cleartext, when it
        /// can (`sslmode=allow` or `prefer`, named by the caller): the
        /// storage logs it as a warning when it is made.
        var downgradeWarning: String?

        /// Reads a connection string:
        /// `postgres://user:password@host:port/database?sslmode=verify-full&sslrootcert=/etc/courier/db-ca.pem`.
        ///
        /// - The scheme is `postgres` or `postgresql`; the port defaults to
        ///   5432 and the database to the user's name.
        /// - A host that starts with `/` (percent-encoded in the authority,
        ///   or as a `host=` query item) is the directory of a Unix socket,
        ///   as with libpq: `postgres://courier@%2Fvar%2Frun%2Fpostgresql/courier`.
        /// - Over TCP, TLS is required unless the string says otherwise: a
        ///   machine in the network path that answers the request for TLS
        ///   with "no" would otherwise receive every token in clear.
        ///   `sslmode` is `require` (the default), `verify-full` or
        ///   `verify-ca`, all of which verify the server's certificate (the
        ///   first two its host name too; libpq's `require` checks nothing,
        ///   this one checks as much as `verify-full`); `disable` for none;
        ///   `prefer` or `allow` to fall back to cleartext when the server
        ///   offers no TLS, only when named, and logged as a warning.
        /// - `sslrootcert` is the path of a PEM file with the certificates of
        ///   the authorities that sign the server's certificate (the
        ///   system's roots otherwise), as with libpq; `trustRoots` gives
        ///   them in code instead.
        /// - Parameters:
        ///   - connectionString: The URL.
        ///   - maximumConnections: The most connections the pool opens.
        ///   - trustRoots: The authorities that sign the server's
        ///     certificate, when not the system's; `sslrootcert` wins over it.
        /// - Throws: ``PostgresStorageError/invalidConnectionString(_:)``
        ///   saying what is wrong (never the password).
        public init(connectionString: String, maximumConnections: Int = 8,
                    trustRoots: [NIOSSLCertificate]? = nil) throws(PostgresStorageError) {
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
            var warning: String?
            if host.hasPrefix("/") {
                let socket = host.hasSuffix(".s.PGSQL.\(port)") ? host : "\(host)/.s.PGSQL.\(port)"
                client = .init(unixSocketPath: socket, username: user, password: password, database: database)
            } else {
                let mode = items["sslmode"] ?? "require"
                var tls = TLSConfiguration.makeClientConfiguration()
                if let file = items["sslrootcert"], !file.isEmpty {
                    guard FileManager.default.isReadableFile(atPath: file) else {
                        throw .invalidConnectionString("sslrootcert \(file) is not a readable file")
                    }
                    tls.trustRoots = .file(file)
                } else if let trustRoots {
                    tls.trustRoots = .certificates(trustRoots)
                }
                if mode == "verify-ca" { tls.certificateVerification = .noHostnameVerification }
                let modes: [String: PostgresClient.Configuration.TLS] = [
                    "disable": .disable, "prefer": .prefer(tls), "allow": .prefer(tls),
                    "require": .require(tls), "verify-ca": .require(tls), "verify-full": .require(tls),
                ]
                guard let chosen = modes[mode] else {
                    throw .invalidConnectionString("sslmode \(mode) is not require, verify-full, verify-ca, disable, prefer or allow")
                }
                if mode == "prefer" || mode == "allow" {
                    warning = "sslmode=\(mode): a server, or a machine in the network path, that offers no TLS gets the "
                        + "password and every token in clear; use sslmode=require or verify-full"
                }
                client = .init(host: host.isEmpty ? "localhost" : host, port: port, username: user, password: password,
                               database: database, tls: chosen)
            }
            self.init(client: client, maximumConnections: maximumConnections)
            self.downgradeWarning = warning
        }
    }
}
