import Courier
import CourierTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// A transport that hands bodies over exactly as they arrived, still
/// compressed, the way a client without automatic decompression does
/// (AsyncHTTPClient by default). `URLSessionTransport` always decodes, so the
/// plugin's decoding path needs this one to be seen against a real server.
///
/// One HTTP/1.1 exchange per connection, over SwiftNIO's client pipeline.
struct EncodedBodyTransport: Transport {
    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        do {
            return try await exchange(request)
        } catch {
            throw NetworkError(transportError: error)
        }
    }

    private func exchange(_ request: TransportRequest) async throws -> TransportResponse {
        let urlRequest = request.urlRequest
        guard let url = urlRequest.url, let host = url.host, let port = url.port else {
            throw NetworkError.requestBuildFailed(URLError(.badURL))
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(CopiesInboundBuffers<HTTPClientResponsePart>())
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        let body = urlRequest.httpBody ?? Data()
        var head = HTTPRequestHead(
            version: .http1_1,
            method: NIOHTTP1.HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
            uri: url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        )
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        head.headers.add(name: "Content-Length", value: String(body.count))
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] where name.lowercased() != "content-length" {
            head.headers.add(name: name, value: value)
        }
        if !head.headers.contains(name: "Accept-Encoding") {
            head.headers.add(name: "Accept-Encoding", value: request.acceptEncoding)
        }
        return try await channel.executeThenClose { inbound, outbound in
            // The whole request in one write: written part by part, a server
            // that answers on the head alone and closes (Connection: close)
            // could close the channel before the end was written, and the
            // call failed with "I/O on closed channel" (once, under the
            // thread sanitizer).
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if !body.isEmpty {
                parts.append(.body(.byteBuffer(ByteBuffer(bytes: body))))
            }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            var responseHead: HTTPResponseHead?
            var received = Data()
            for try await part in inbound {
                switch part {
                case .head(let value): responseHead = value
                case .body(let chunk): received.append(contentsOf: chunk.readableBytesView)
                case .end: break
                }
            }
            guard let responseHead else { throw NetworkError.connectionLost(URLError(.networkConnectionLost)) }
            var fields: [String: String] = [:]
            for (name, value) in responseHead.headers {
                fields[name] = value
            }
            return TransportResponse(statusCode: Int(responseHead.status.code), url: url, headerFields: fields, body: ResponseBody(received))
        }
    }
}
