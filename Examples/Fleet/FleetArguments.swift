import Foundation

/// The command line:
///
///     Fleet [--workers N] [--requests K] [--database URL] [--fresh] [--refresh-delay S]
///     Fleet --serve-database
///     Fleet --worker --database URL --server URL [--scenario run|hold] [--requests K] [--refresh-timeout S]
struct FleetArguments: Sendable {
    var isWorker = false
    var workers = 8
    var requests = 5
    var database: String?
    var server = URL(fileURLWithPath: "/")
    var scenario = "run"
    var refreshTimeout: TimeInterval = 60
    /// Seed a valid credential instead of an expired one: no refresh.
    var fresh = false
    /// Seconds the token server takes to answer a refresh.
    var refreshDelay: TimeInterval = 0.1
    /// Only start a temporary PostgreSQL, print its connection string, and
    /// stop it when standard input closes (for the benchmarks).
    var serveDatabase = false

    static let current = FleetArguments(CommandLine.arguments.dropFirst())

    init(_ arguments: some Collection<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--worker": isWorker = true
            case "--workers": workers = iterator.next().flatMap { Int($0) }.map { max(1, $0) } ?? workers
            case "--requests": requests = iterator.next().flatMap { Int($0) }.map { max(0, $0) } ?? requests
            case "--database": database = iterator.next()
            case "--server": server = iterator.next().flatMap { URL(string: $0) } ?? server
            case "--scenario": scenario = iterator.next() ?? scenario
            case "--fresh": fresh = true
            case "--refresh-delay": refreshDelay = iterator.next().flatMap { Double($0) } ?? refreshDelay
            case "--serve-database": serveDatabase = true
            case "--refresh-timeout": refreshTimeout = iterator.next().flatMap { Double($0) } ?? refreshTimeout
            default: FileHandle.standardError.write(Data("Fleet: ignoring \(argument)\n".utf8))
            }
        }
    }
}
