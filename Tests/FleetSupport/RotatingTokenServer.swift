import CourierLoopback
import Foundation
import NIOConcurrencyHelpers

/// A token server on the loopback server that rotates refresh tokens: each
/// refresh token is accepted once, and a second use is refused with 401, as
/// servers that detect refresh-token reuse do.
///
/// - `POST /token` with the body `refresh_token=<token>` answers
///   `{"access_token": "access-N", "refresh_token": "refresh-N", "expires_in": 3600}`
///   for the current refresh token, after ``refreshDelay`` seconds.
/// - `GET /data/<anything>` answers 200 with a small JSON body, cacheable for
///   a minute, to the current access token, and 401 to any other.
///
/// The fleet starts from ``initialAccessToken`` (issued expired) and
/// ``initialRefreshToken``.
public final class RotatingTokenServer: Sendable {
    /// The server the routes are on.
    public let server: LoopbackServer
    private let state = NIOLockedValueBox(Tokens())

    private struct Tokens {
        var generation = 0
        var refreshes = 0
        var refused = 0
    }

    /// The first access token.
    public static let initialAccessToken = "access-0"
    /// The first refresh token.
    public static let initialRefreshToken = "refresh-0"

    /// Adds the routes to `server`.
    /// - Parameters:
    ///   - server: A running loopback server.
    ///   - refreshDelay: Seconds a refresh takes, so that processes needing
    ///     one meet while it runs.
    public init(server: LoopbackServer, refreshDelay: TimeInterval = 0.2) {
        self.server = server
        let state = state
        server.route("/token") { request in
            let presented = request.bodyText.replacingOccurrences(of: "refresh_token=", with: "")
            let issued: Int? = state.withLockedValue { tokens in
                guard presented == "refresh-\(tokens.generation)" else {
                    tokens.refused += 1
                    return nil
                }
                tokens.generation += 1
                tokens.refreshes += 1
                return tokens.generation
            }
            guard let issued else { return .text("refresh token already used", status: 401) }
            let body = #"{"access_token":"access-\#(issued)","refresh_token":"refresh-\#(issued)","expires_in":3600}"#
            return LoopbackResponse(status: 200, headers: [("Content-Type", "application/json")], body: .data(Data(body.utf8)),
                                    delay: refreshDelay)
        }
        server.route("/data", prefix: true) { request in
            let current = state.withLockedValue { "Bearer access-\($0.generation)" }
            guard request.header("Authorization") == current else { return .text("token refused", status: 401) }
            return .json(Data(#"{"path":"\#(request.path)"}"#.utf8), headers: [("Cache-Control", "max-age=60")])
        }
    }

    /// How many refreshes the server accepted.
    public var refreshes: Int { state.withLockedValue { $0.refreshes } }
    /// How many refreshes it refused (a refresh token used twice).
    public var refusedRefreshes: Int { state.withLockedValue { $0.refused } }
    /// The access token issued last.
    public var currentAccessToken: String { state.withLockedValue { "access-\($0.generation)" } }
    /// How many data requests reached the server: the fleet's cache misses.
    public var dataRequests: Int { server.hits(prefix: "/data") }
}
