import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Compresses request bodies of the targets that opt in, and decompresses
/// gzip and deflate responses the transport left encoded.
///
/// ```swift
/// let provider = Provider<UploadAPI>(plugins: [GzipPlugin()])
/// ```
///
/// - Requests: a body of at least `Configuration/compressionThreshold` bytes
///   of a ``GzipRequestCompressible`` target (or of any call that sets
///   `CompressRequestBody`) is gzip-compressed and sent with
///   `Content-Encoding: gzip`. Streamed and file bodies are sent as they are.
/// - Responses: a body with `Content-Encoding: gzip`, `x-gzip` or `deflate`
///   (zlib or raw) is decompressed, at most
///   `Configuration/maximumDecompressedSize` bytes, and the header removed.
///   A streamed call's body (`Provider.stream`) is decompressed as the
///   caller reads it, under the same limit; `Content-Encoding` and
///   `Content-Length` leave its head. (A streamed call asks for `identity`
///   unless its target names an `Accept-Encoding`, so this is for servers
///   that compress anyway and targets that ask.)
///   Both shipped transports decode gzip and deflate themselves while
///   `TransferConfiguration.decodesContent` is on (the default), and the
///   header then leaves the head, so nothing is ever decoded twice: this
///   decodes what arrives still encoded (decoding off, layered encodings, a
///   transport of your own).
public struct GzipPlugin: Plugin {
    /// The configuration in force.
    public let configuration: Configuration

    /// Creates the plugin.
    /// - Parameter configuration: Thresholds and limits.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    // MARK: - Requests

    /// Compresses the body when the call, the target or the configuration
    /// asks for it and the body is at least the threshold.
    /// - Throws: `Failure/compressionFailed(_:)` if zlib fails; nothing is sent.
    public func prepare(_ request: URLRequest, context: RequestContext) async throws -> URLRequest {
        guard shouldCompress(context), let body = request.httpBody, body.count >= configuration.compressionThreshold,
              request.value(forHTTPHeaderField: "Content-Encoding") == nil
        else { return request }
        var compressed = request
        do {
            compressed.httpBody = try Gzip.compress(body, level: configuration.compressionLevel)
        } catch {
            throw Failure.compressionFailed(error)
        }
        compressed.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        if request.value(forHTTPHeaderField: "Content-Length") != nil {
            compressed.setValue(String(compressed.httpBody?.count ?? 0), forHTTPHeaderField: "Content-Length")
        }
        return compressed
    }

    private func shouldCompress(_ context: RequestContext) -> Bool {
        if let choice = context.options[CompressRequestBody.self] { return choice }
        if let target = context.target as? any GzipRequestCompressible { return target.compressesRequestBody }
        return configuration.compressesEveryTarget
    }

    // MARK: - Responses

    /// Decompresses a successful response whose `Content-Encoding` is gzip or
    /// deflate, and removes the header; other results pass unchanged. For a
    /// streamed call (`RequestContext.isStreamed`) it registers a decoder
    /// that decompresses the body as the caller reads it.
    /// - Returns: The decoded response, or a `NetworkError/plugin(_:_:)`
    ///   failure wrapping `Failure/decompressionFailed(encoding:url:_:)`.
    public func process(_ result: Result<Response, NetworkError>, context: RequestContext) async -> Result<Response, NetworkError> {
        guard configuration.decompressesResponses, case .success(let response) = result,
              let header = response.value(forHTTPHeaderField: "Content-Encoding"),
              let encodings = Self.decodableEncodings(header)
        else { return result }
        if context.isStreamed {
            return .success(decodingStream(response, encodings: encodings, context: context))
        }
        do {
            return .success(try decoded(response, encodings: encodings))
        } catch {
            return .failure(NetworkError(pluginError: error, plugin: self))
        }
    }

    /// The encodings in the order they must be undone, or `nil` when one of
    /// them is not gzip or deflate (the body is then left as it is). The
    /// AsyncHTTPClient transport reads `Content-Encoding` with it too.
    package static func decodableEncodings(_ header: String) -> [String]? {
        let encodings = header.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !encodings.isEmpty, encodings.allSatisfy({ ["gzip", "x-gzip", "deflate"].contains($0) }) else { return nil }
        return encodings.reversed()
    }

    /// A streamed head whose body `context` decodes as it is read, with the
    /// fields that described the encoded body removed. A body-less answer
    /// (HEAD, 204, 304) describes the resource and is left as it is.
    private func decodingStream(_ head: Response, encodings: [String], context: RequestContext) -> Response {
        guard head.request?.httpMethod != "HEAD", head.statusCode != 204, head.statusCode != 304 else { return head }
        let url = Self.describe(head.response?.url ?? head.request?.url)
        context.decodeStream(with: StreamingDecompression(encodings: encodings, limit: configuration.maximumDecompressedSize) {
            .plugin("GzipPlugin", Failure.decompressionFailed(encoding: $0, url: url, $1))
        })
        return head.replacing(response: Self.withoutEncoding(head.response, length: nil))
    }

    private func decoded(_ response: Response, encodings: [String]) throws(Failure) -> Response {
        // Nothing decoded, nothing to rewrite: a body-less answer (HEAD, 204,
        // 304) describes the resource, whose Content-Encoding and
        // Content-Length still hold; a download's body is in a file this
        // plugin does not touch.
        guard !response.data.isEmpty, response.fileURL == nil else { return response }
        var data = response.data
        for encoding in encodings {
            let format: Gzip.Format? = encoding == "deflate" ? nil : .gzip
            do {
                data = try Gzip.decompress(data, format: format, limit: configuration.maximumDecompressedSize)
            } catch {
                throw .decompressionFailed(encoding: encoding, url: Self.describe(response.response?.url ?? response.request?.url), error)
            }
        }
        return response.replacing(data: data).replacing(response: Self.withoutEncoding(response.response, length: data.count))
    }

    /// The URL without its query and user information, which may carry
    /// secrets, for error messages.
    private static func describe(_ url: URL?) -> String {
        url.map(URLRedactor.summary) ?? "the server"
    }

    /// `response` without `Content-Encoding`, and with `length` as its
    /// `Content-Length` (none when `nil`: a stream's length is not known).
    private static func withoutEncoding(_ response: HTTPURLResponse?, length: Int?) -> HTTPURLResponse? {
        guard let response, let url = response.url else { return response }
        var received: [String: String] = [:]
        for case let (name as String, value as String) in response.allHeaderFields {
            received[name] = value
        }
        let fields = HeaderFields.afterDecoding(received, decodedLength: length.map(Int64.init))
        return HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: fields) ?? response
    }
}
