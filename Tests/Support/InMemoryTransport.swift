import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A whole ``Transport`` in a few lines: it answers from a loopback server's
/// routes without a socket. Redirects, limits, downloads, progress and errors
/// are the transfer stage's, so it passes the conformance suite's tests that
/// need no real connection.
public struct InMemoryTransport: Transport {
    public let server: LoopbackServer

    public init(server: LoopbackServer) {
        self.server = server
    }

    public func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        var body = request.urlRequest.httpBody ?? Data()
        if let file = request.uploadFile {
            do { body = try Data(contentsOf: file) } catch { throw NetworkError(transportError: error) }
        }
        request.control.didSend(Int64(body.count), of: Int64(body.count))
        let url = request.url
        let uri = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        let headers = (request.urlRequest.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        let answer = await server.respond(method: request.method, uri: uri, headers: headers, body: body)
        // As a client hands fields over: in order, a repeated name joined.
        let fields = answer.headers.map { (name: $0.name, value: $0.value) }
        guard !request.collectsBody else {
            return TransportResponse(statusCode: answer.status, url: url, headerFieldPairs: fields, body: ResponseBody(answer.body), contentDecoded: false)
        }
        let (stream, writer) = ResponseBody.makeStream()
        for start in stride(from: 0, to: answer.body.count, by: 64 * 1024) {
            writer.yield(answer.body.subdata(in: start..<min(answer.body.count, start + 64 * 1024)))
        }
        writer.finish()
        return TransportResponse(statusCode: answer.status, url: url, headerFieldPairs: fields, body: stream, contentDecoded: false)
    }
}
