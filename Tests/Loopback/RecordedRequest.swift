import Foundation

/// A request as the loopback server received it.
public struct RecordedRequest: Sendable {
    /// The method, for example `"POST"`.
    public let method: String
    /// The request target as sent: path and query, still percent-encoded.
    public let uri: String
    /// The path, percent-decoded.
    public let path: String
    /// The raw query string, without `?`, still percent-encoded.
    public let rawQuery: String?
    /// Header fields in the order they arrived.
    public let headers: [(name: String, value: String)]
    /// The body, whole.
    public let body: Data
    /// Which connection it came on (each TCP connection has its own number;
    /// the streams of one HTTP/2 connection share it).
    public let connectionID: Int
    /// The protocol it came in: `1` for HTTP/1.x, `2` for HTTP/2.
    public let httpMajorVersion: Int

    init(method: String, uri: String, headers: [(name: String, value: String)], body: Data, connectionID: Int,
         httpMajorVersion: Int = 1) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? uri
        self.method = method
        self.uri = uri
        self.path = rawPath.removingPercentEncoding ?? rawPath
        self.rawQuery = parts.count > 1 ? String(parts[1]) : nil
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
        self.httpMajorVersion = httpMajorVersion
    }

    /// The first value of a header field, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of a header field, matched case-insensitively.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Query items, percent-decoded, in order.
    public var queryItems: [URLQueryItem] {
        var components = URLComponents()
        components.percentEncodedQuery = rawQuery
        return components.queryItems ?? []
    }

    /// The first value of a query item.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The request as JSON, as `/echo` answers it.
    public func echoJSON() -> Data {
        let object: [String: Any] = [
            "method": method,
            "uri": uri,
            "path": path,
            "query": rawQuery ?? "",
            "headers": headers.map { [$0.name, $0.value] },
            "body": body.base64EncodedString(),
            "bodyLength": body.count,
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}

/// What the loopback server answers.
public struct LoopbackResponse: Sendable {
    /// How the body is written.
    public enum Body: Sendable {
        /// These bytes, with `Content-Length`.
        case data(Data)
        /// These pieces, with `Transfer-Encoding: chunked`.
        case chunked([Data])
        /// `count` deterministic bytes (``LoopbackServer/bytes(count:seed:)``),
        /// streamed in 64 KiB writes with `Content-Length`.
        case generated(count: Int, seed: UInt64)
        /// Whatever the closure writes, each write a chunk sent at once, with
        /// `Transfer-Encoding: chunked`; the body ends when it returns. A test
        /// holds it on a ``Gate`` to control when each piece leaves.
        case streamed(@Sendable (LoopbackBodyWriter) async throws -> Void)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body
    /// Seconds to wait before answering.
    public var delay: TimeInterval

    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: Body = .data(Data()), delay: TimeInterval = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
    }

    /// The whole body, as it goes over the wire.
    public var bodyData: Data {
        switch body {
        case .data(let data): data
        case .chunked(let chunks): chunks.reduce(Data(), +)
        case .generated(let count, let seed): LoopbackServer.bytes(count: count, seed: seed)
        case .streamed: Data()
        }
    }

    /// A response with a text body.
    public static func text(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: .data(Data(text.utf8)))
    }

    /// A streamed response of `count` lines reading `line`, each written on
    /// its own.
    public static func lines(_ count: Int) -> LoopbackResponse {
        LoopbackResponse(body: .streamed { writer in
            for _ in 0..<count { try await writer.write("line\n") }
        })
    }

    /// A response with a JSON body.
    public static func json(_ data: Data, status: Int = 200, headers: [(name: String, value: String)] = []) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: .data(data))
    }

    /// A response with any `Encodable` as its JSON body.
    public static func json(_ value: some Encodable, status: Int = 200, headers: [(name: String, value: String)] = []) -> LoopbackResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return json((try? encoder.encode(value)) ?? Data(), status: status, headers: headers)
    }
}

/// Writes the pieces of a ``LoopbackResponse/Body/streamed(_:)`` body.
public struct LoopbackBodyWriter: Sendable {
    let send: @Sendable (Data) async throws -> Void

    /// Creates a writer that hands each piece to `send`.
    public init(_ send: @escaping @Sendable (Data) async throws -> Void) {
        self.send = send
    }

    /// Sends `data` as one chunk, now; throws once the client has gone.
    public func write(_ data: Data) async throws {
        try await send(data)
    }

    /// Sends `text` in UTF-8 as one chunk.
    public func write(_ text: String) async throws {
        try await send(Data(text.utf8))
    }
}

/// A request handler for a custom route.
public typealias LoopbackHandler = @Sendable (RecordedRequest) async -> LoopbackResponse
