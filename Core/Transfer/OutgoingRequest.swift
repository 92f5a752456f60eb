import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One hop's request: the `URLRequest` with its body in `httpBody`, in a
/// file, or in a stream the transport reads as it sends, so that it can be
/// sent again after a 307 or 308 (a one-shot stream cannot).
struct OutgoingRequest: Sendable {
    var urlRequest: URLRequest
    var uploadFile: URL?
    var bodyLength: Int64
    var bodyStream: RequestBodyStream?

    var url: URL? { urlRequest.url }

    /// Whether the request has a body to send.
    var hasBody: Bool { bodyLength > 0 || uploadFile != nil || bodyStream != nil }

    /// Bodies of streams larger than this go to a temporary file.
    static let streamMemoryLimit = 4 << 20

    /// The request as it left the plugins. A one-shot `httpBodyStream` is
    /// read once, into memory or a private temporary file (returned for the
    /// caller to remove), so every transport sends it and a redirect can send
    /// it again.
    static func make(_ request: URLRequest, uploadFile: URL?, bodyStream: RequestBodyStream? = nil)
        throws(NetworkError) -> (OutgoingRequest, temporaryFile: URL?) {
        if let bodyStream {
            var request = request
            request.httpBody = nil
            request.httpBodyStream = nil
            return (OutgoingRequest(urlRequest: request, uploadFile: nil, bodyLength: bodyStream.knownLength ?? 0,
                                    bodyStream: bodyStream), nil)
        }
        if let uploadFile {
            let size = (try? FileManager.default.attributesOfItem(atPath: uploadFile.path)[.size] as? NSNumber)?.int64Value
            guard let size else {
                throw .requestBuildFailed(RequestBuildFailure.unreadableUploadFile(uploadFile.path))
            }
            return (OutgoingRequest(urlRequest: request, uploadFile: uploadFile, bodyLength: size), nil)
        }
        guard let stream = request.httpBodyStream else {
            return (OutgoingRequest(urlRequest: request, uploadFile: nil, bodyLength: Int64(request.httpBody?.count ?? 0)), nil)
        }
        var request = request
        request.httpBodyStream = nil
        do {
            switch try read(stream) {
            case .data(let data):
                request.httpBody = data
                return (OutgoingRequest(urlRequest: request, uploadFile: nil, bodyLength: Int64(data.count)), nil)
            case .file(let url, let length):
                return (OutgoingRequest(urlRequest: request, uploadFile: url, bodyLength: length), url)
            }
        } catch {
            throw .requestBuildFailed(error)
        }
    }

    private static func read(_ stream: InputStream) throws -> SpooledBody {
        stream.open()
        defer { stream.close() }
        var spool = Spool(memoryLimit: streamMemoryLimit)
        let chunkSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        do {
            while true {
                let count = stream.read(&buffer, maxLength: chunkSize)
                if count < 0 {
                    throw RequestBuildFailure.unreadableBodyStream(stream.streamError.map { String(describing: $0) } ?? "read failed")
                }
                if count == 0 { break }
                try spool.append(buffer[0..<count])
            }
            return try spool.finish()
        } catch {
            spool.discard()
            throw error
        }
    }
}
