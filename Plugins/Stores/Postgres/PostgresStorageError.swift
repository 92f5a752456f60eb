/// Why ``PostgresStorage`` or ``PostgresCredentialStore`` could not do what
/// was asked. ``PostgresResponseCache`` never throws: for it these are misses.
public enum PostgresStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection string is not a `postgres://` or `postgresql://` URL
    /// this package understands; the associated value says what is wrong.
    case invalidConnectionString(String)
    /// The database holds Courier's tables in another version than this
    /// release's ``PostgresStorage/schemaVersion``; they are left untouched.
    case schemaVersionMismatch(found: Int, expected: Int)
    /// Courier's tables are there but cannot be trusted with tokens: another
    /// role owns them or their schema, or may write them; the associated
    /// value says which. Nothing was read or written.
    case untrustedTables(String)
    /// A refresh held the fleet's refresh lock longer than the store's
    /// `refreshTimeout`; the lock was released and the credential kept.
    case refreshTimedOut(seconds: Double)
    /// A ``FleetKey`` could not be made; the associated value says why.
    case invalidFleetKey(String)

    /// What went wrong and what to do, without any secret.
    public var description: String {
        switch self {
        case .invalidConnectionString(let reason):
            "The PostgreSQL connection string is invalid: \(reason). "
                + "Use postgres://user:password@host:port/database (with ?sslmode=require|verify-full|verify-ca|disable, and sslrootcert=FILE)."
        case .schemaVersionMismatch(let found, let expected):
            "The database holds Courier's tables in version \(found), and this release reads version \(expected). "
                + "Nothing was changed; point this release at another database, or migrate the tables."
        case .untrustedTables(let problems):
            "Courier's tables in this database cannot be trusted: \(problems). Nothing was read or written. "
                + "Another role may have made them first; have the fleet's role own the tables and their schema, "
                + "and grant no other role INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER or REFERENCES on them."
        case .invalidFleetKey(let reason):
            "The fleet key is invalid: \(reason). Use the Base64 text FleetKey.generate() makes (32 random bytes), "
                + "the same in every process of the fleet."
        case .refreshTimedOut(let seconds):
            "The credential refresh did not finish within \(seconds) seconds; the fleet's refresh lock was "
                + "released and the credential kept."
        }
    }
}
