import Courier
import CourierLoopback
import Foundation

/// The demo API's data.
struct DemoUser: Codable, Sendable {
    let id: Int
    let name: String
    let email: String
}

/// The small API the demo talks to, served in-process on 127.0.0.1.
enum DemoAPI {
    static let users = [
        DemoUser(id: 1, name: "Ada Lovelace", email: "ada@example.com"),
        DemoUser(id: 2, name: "Grace Hopper", email: "grace@example.com"),
        DemoUser(id: 3, name: "Edsger Dijkstra", email: "edsger@example.com"),
    ]

    /// Installs the core routes; each later part of the demo adds its own.
    static func install(on server: LoopbackServer) {
        server.route("/users") { _ in .json(users) }
        server.route("/users/", prefix: true) { request in
            let id = Int(request.path.split(separator: "/").last ?? "") ?? 0
            guard let user = users.first(where: { $0.id == id }) else {
                return .json(Data(#"{"error":"no user \#(id)"}"#.utf8), status: 404)
            }
            return .json(user)
        }
        server.route("/pages/", prefix: true) { request in
            let page = Int(request.path.split(separator: "/").last ?? "") ?? 1
            let next = page < 3 ? "\(page + 1)" : "null"
            return .json(Data(#"{"page":\#(page),"next":\#(next)}"#.utf8))
        }
        server.route("/broken-json") { _ in .json(Data(#"{"id": "not a number", "name": 7}"#.utf8)) }
    }
}
