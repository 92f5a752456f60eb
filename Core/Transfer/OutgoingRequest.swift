import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One hop's request: the `URLRequest` with its body in `httpBody` or in a
/// file, so that it can be sent again after a 307 or 308.
struct OutgoingRequest: Sendable {
    var urlRequest: URLRequest
    var uploadFile: URL?
    var bodyLength: Int64

    var url: URL? { urlRequest.url }

    /// Bodies of streams larger than this go to a temporary file.
    static let streamMemoryLimit = 4 << 20

    /// The request as it left the plugins. A one-shot `httpBodyStream` is
    /// read once, into memory or a private temporary file (returned for the
    /// caller to remove), so every transport sends it and a redirect can send
    /// it again.
    static func make(_ request: URLRequest, uploadFile: URL?) throws(NetworkError) -> (OutgoingRequest, temporaryFile: URL?) {
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

    private enum ReadBody {
        case data(Data)
        case file(URL, Int64)
    }

    private static func read(_ stream: InputStream) throws -> ReadBody {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var file: (url: URL, handle: FileHandle)?
        var length: Int64 = 0
        let chunkSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        do {
            while true {
                let count = stream.read(&buffer, maxLength: chunkSize)
                if count < 0 {
                    throw RequestBuildFailure.unreadableBodyStream(stream.streamError.map { String(describing: $0) } ?? "read failed")
                }
                if count == 0 { break }
                length += Int64(count)
                if let file {
                    try file.handle.write(contentsOf: buffer[0..<count])
                } else {
                    data.append(contentsOf: buffer[0..<count])
                    if data.count > streamMemoryLimit {
                        let created = try PrivateTemporaryFile.create(prefix: "body")
                        file = created
                        try created.handle.write(contentsOf: data)
                        data = Data()
                    }
                }
            }
            guard let file else { return .data(data) }
            try file.handle.close()
            return .file(file.url, length)
        } catch {
            if let file {
                try? file.handle.close()
                try? FileManager.default.removeItem(at: file.url)
            }
            throw error
        }
    }
}
