import AsyncHTTPClient
import Courier
import Foundation
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response's status line and header fields, as Foundation types.
struct ResponseHead: Sendable {
    /// Encodings AsyncHTTPClient's decompressor decodes.
    private static let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate"]

    let url: URL
    let statusCode: Int
    /// The fields as `HTTPURLResponse` takes them: repeated fields joined
    /// with ", ", keeping the first spelling of each name.
    let fields: [String: String]
    /// The fields as received, for case-insensitive lookups.
    private let headers: HTTPHeaders
    /// Whether the client decodes this body, so its encoding and length are
    /// removed from the header fields handed over.
    let isDecoded: Bool

    init(_ response: HTTPClientResponse, url: URL, clientDecompresses: Bool) {
        self.init(status: response.status, headers: response.headers, url: url, clientDecompresses: clientDecompresses)
    }

    init(status: HTTPResponseStatus, headers: HTTPHeaders, url: URL, clientDecompresses: Bool) {
        var fields: [String: String] = [:]
        var spellings: [String: String] = [:]
        for (name, value) in headers {
            let lowercased = name.lowercased()
            if let key = spellings[lowercased], let existing = fields[key] {
                fields[key] = "\(existing), \(value)"
            } else {
                spellings[lowercased] = name
                fields[name] = value
            }
        }
        let encoding = headers.first(name: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        self.url = url
        self.statusCode = Int(status.code)
        self.fields = fields
        self.headers = headers
        self.isDecoded = clientDecompresses && encoding.map(Self.decodedEncodings.contains) == true
    }

    /// The field's value (repeated fields joined with ", "), any spelling of its name.
    func value(forHTTPHeaderField name: String) -> String? {
        let values = headers[name]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The announced body length, unless the client decodes the body.
    private var expectedLength: Int64? {
        guard !isDecoded, let length = value(forHTTPHeaderField: "Content-Length").flatMap(Int64.init), length > 0 else { return nil }
        return length
    }

    func downloadProgress(received: Int64) -> TransferProgress {
        let total = expectedLength.flatMap { received <= $0 ? $0 : nil }
        return TransferProgress(direction: .download, completedBytes: received, totalBytes: total)
    }

    /// The header fields handed over: without `Content-Encoding` and with
    /// `Content-Length` set to the decoded size when the client decoded the body.
    func headerFields(bodyLength: Int64) -> [String: String] {
        guard isDecoded else { return fields }
        var fields = fields.filter { !["content-encoding", "content-length"].contains($0.key.lowercased()) }
        fields["Content-Length"] = String(bodyLength)
        return fields
    }

    /// The `HTTPURLResponse` with ``headerFields(bodyLength:)``.
    func httpResponse(bodyLength: Int64) throws -> HTTPURLResponse {
        guard let response = HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1",
                                              headerFields: headerFields(bodyLength: bodyLength)) else {
            throw NetworkError.transport(URLError(.badServerResponse))
        }
        return response
    }
}

/// A finished exchange: the head, the request that got it, and the body.
struct ReceivedResponse: Sendable {
    let head: ResponseHead
    let request: URLRequest
    let body: ReceivedBody

    /// The ``Response``, with a download moved to its destination.
    func makeResponse(destination: DownloadDestination?) throws -> Response {
        switch body {
        case .memory(let data):
            // The HTTPURLResponse is made only if somebody reads it.
            return Response(statusCode: head.statusCode, data: data, request: request, url: head.url,
                            headerFields: head.headerFields(bodyLength: Int64(data.count)))
        case .file(let temporaryFile, let length):
            let response: HTTPURLResponse
            do {
                response = try head.httpResponse(bodyLength: length)
            } catch {
                try? FileManager.default.removeItem(at: temporaryFile)
                throw error
            }
            guard let destination else {
                try? FileManager.default.removeItem(at: temporaryFile)
                return Response(statusCode: head.statusCode, data: Data(), request: request, response: response)
            }
            let (url, options) = destination(temporaryFile, response)
            do {
                try DownloadMover.move(temporaryFile, to: url, options: options)
            } catch {
                try? FileManager.default.removeItem(at: temporaryFile)
                throw NetworkError.transport(error)
            }
            return Response(statusCode: head.statusCode, data: Data(), request: request, response: response, fileURL: url)
        }
    }
}
