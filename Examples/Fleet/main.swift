import CourierAuth
import CourierFleetSupport
import CourierPostgres
import Foundation

// Starts N worker processes (this executable again, with --worker) that share
// one PostgreSQL database, against a loopback token server that accepts each
// refresh token once. Every worker's token has expired at the start, so all of
// them need a refresh at the same moment; the fleet makes one. Prints how many
// refreshes and cache misses the fleet made.
//
//     swift run Fleet                      # a temporary PostgreSQL of its own
//     swift run Fleet --workers 8 --requests 5 --database postgres://user@host/db
//     swift run Fleet --fresh              # the same with a valid token: no refresh

let arguments = FleetArguments.current
do {
    if arguments.isWorker {
        try await Worker.run(arguments)
    } else if arguments.serveDatabase {
        try Coordinator.serveDatabase()
    } else {
        try await Coordinator.run(arguments)
    }
} catch {
    FileHandle.standardError.write(Data("Fleet: \(error)\n".utf8))
    exit(1)
}
