import Foundation
import NIOCore
import NIOHTTP1

/// Reads the requests of one connection in order and answers each.
struct ConnectionHandler {
    let state: ServerState

    /// Serves `connection` until it closes. An HTTP/2 stream passes the
    /// number of the connection it belongs to.
    func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, connectionID: Int? = nil) async {
        let id = connectionID ?? state.open(connection.channel)
        if connectionID == nil {
            connection.channel.closeFuture.whenComplete { [state] _ in
                state.closed(id)
            }
        }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                    body.clear()
                    if requestHead.headers["Expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                        try await outbound.write(.head(HTTPResponseHead(version: requestHead.version, status: .continue)))
                    }
                case .body(var chunk):
                    if let head {
                        state.bodyArrived(path: String(head.uri.prefix { $0 != "?" }), count: chunk.readableBytes)
                    }
                    body.writeBuffer(&chunk)
                case .end:
                    guard let requestHead = head else { continue }
                    let request = Self.record(requestHead, body: body, connectionID: id)
                    state.record(request)
                    let response = await respond(to: request)
                    if response.delay > 0 {
                        try await Task.sleep(nanoseconds: UInt64(response.delay * 1_000_000_000))
                    }
                    try await write(response, for: requestHead, to: outbound)
                    if requestHead.version.major >= 2 {
                        // An HTTP/2 stream ends once both sides have ended it;
                        // closing it sooner would cut off what flow control
                        // still holds back.
                        try? await connection.channel.closeFuture.get()
                        return
                    }
                    if !requestHead.isKeepAlive {
                        return
                    }
                    head = nil
                }
            }
        }
    }

    private static func record(_ head: HTTPRequestHead, body: ByteBuffer, connectionID: Int) -> RecordedRequest {
        RecordedRequest(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { (name: $0.name, value: $0.value) },
                        body: Data(body.readableBytesView), connectionID: connectionID, httpMajorVersion: head.version.major)
    }

    // MARK: - Routing

    func respond(to request: RecordedRequest) async -> LoopbackResponse {
        if let handler = state.customHandler(for: request.path) {
            return await handler(request)
        }
        let segments = request.path.split(separator: "/").map(String.init)
        switch (segments.first, segments.count) {
        case ("echo", _):
            return .json(request.echoJSON())
        case ("status", 2):
            let code = Int(segments[1]) ?? 500
            return .text("status \(code)", status: code)
        case ("delay", 2):
            var response = LoopbackResponse.text("ok")
            response.delay = (Double(segments[1]) ?? 0) / 1000
            return response
        case ("redirect", 2):
            let code = Int(segments[1]) ?? 302
            return LoopbackResponse(status: code, headers: [("Location", request.query("to") ?? "/echo")], body: .data(Data()))
        case ("bytes", 2):
            let count = Int(segments[1]) ?? 0
            let seed = UInt64(request.query("seed") ?? "1") ?? 1
            let digest = SHA256.hex(LoopbackServer.bytes(count: count, seed: seed))
            return LoopbackResponse(
                headers: [("Content-Type", "application/octet-stream"), ("X-Body-SHA256", digest)],
                body: .generated(count: count, seed: seed)
            )
        case ("chunked", 2):
            let count = Int(segments[1]) ?? 0
            let pieces = max(1, Int(request.query("chunks") ?? "4") ?? 4)
            let data = LoopbackServer.bytes(count: count, seed: 7)
            let size = max(1, (count + pieces - 1) / pieces)
            let chunks = stride(from: 0, to: count, by: size).map { data.subdata(in: $0..<min(count, $0 + size)) }
            return LoopbackResponse(headers: [("Content-Type", "application/octet-stream")], body: .chunked(chunks))
        default:
            return .text("no route for \(request.path)", status: 404)
        }
    }

    // MARK: - Writing

    private func write(
        _ response: LoopbackResponse,
        for request: HTTPRequestHead,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders()
        for (name, value) in response.headers {
            headers.add(name: name, value: value)
        }
        // HEAD responses, 1xx, 204 and 304 never carry a body (RFC 9110 §6.4.1);
        // writing one would corrupt the next response on the connection.
        let status = response.status
        let hasNoBody = request.method == .HEAD || (100..<200).contains(status) || status == 204 || status == 304
        switch response.body {
        case .data(let data):
            if !headers.contains(name: "Content-Length") { headers.replaceOrAdd(name: "Content-Length", value: String(data.count)) }
        case .generated(let count, _):
            headers.replaceOrAdd(name: "Content-Length", value: String(count))
        case .chunked, .streamed:
            headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        }
        if status == 204 || (100..<200).contains(status) {
            headers.remove(name: "Content-Length")
            headers.remove(name: "Transfer-Encoding")
        }
        if request.version.major < 2 {
            headers.replaceOrAdd(name: "Connection", value: request.isKeepAlive ? "keep-alive" : "close")
        }
        let head = HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        try await outbound.write(.head(head))
        if !hasNoBody {
            switch response.body {
            case .data(let data):
                if !data.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: data)))) }
            case .chunked(let chunks):
                for chunk in chunks where !chunk.isEmpty {
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
                }
            case .streamed(let produce):
                try await produce(LoopbackBodyWriter { data in
                    guard !data.isEmpty else { return }
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: data))))
                })
            case .generated(let count, let seed):
                var generator = ByteGenerator(seed: seed)
                var remaining = count
                let chunkSize = 64 * 1024
                // One generator across chunks gives the same bytes as
                // `LoopbackServer.bytes(count:seed:)` as long as chunks are whole
                // multiples of 8 bytes.
                while remaining > 0 {
                    let size = min(chunkSize, remaining)
                    var buffer = ByteBufferAllocator().buffer(capacity: size)
                    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { pointer in
                        generator.fill(UnsafeMutableRawBufferPointer(rebasing: pointer[0..<size]))
                        return size
                    }
                    try await outbound.write(.body(.byteBuffer(buffer)))
                    remaining -= size
                }
            }
        }
        try await outbound.write(.end(nil))
    }
}
