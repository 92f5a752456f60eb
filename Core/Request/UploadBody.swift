import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of an upload task, attached by the provider: a file the caller
/// named, a multipart form encoded in memory or into a temporary file, or a
/// stream the transport sends as it is read.
enum UploadBody {
    case none
    case file(URL)
    case temporaryFile(URL)
    case stream(RequestBodyStream)

    var file: URL? {
        switch self {
        case .none, .stream: nil
        case .file(let url), .temporaryFile(let url): url
        }
    }

    /// A stream the transport sends as it reads it.
    var stream: RequestBodyStream? {
        if case .stream(let body) = self { return body }
        return nil
    }

    // Not inlined: a path a plain call does not take (see the note on
    // frames in Provider+Pipeline.swift).
    /// Reads a stream whole for a transport that cannot send one as it is
    /// made: into `request.httpBody` (where plugins see it) up to 4 MiB,
    /// otherwise into a temporary file sent with its `Content-Length`.
    @inline(never)
    func spooled(request: inout URLRequest) async throws(NetworkError) -> UploadBody {
        guard case .stream(let body) = self else { return self }
        switch try await body.spool(memoryLimit: OutgoingRequest.streamMemoryLimit) {
        case .data(let data):
            request.httpBody = data
            return .none
        case .file(let url, let length):
            request.setValue(String(length), forHTTPHeaderField: "Content-Length")
            return .temporaryFile(url)
        }
    }

    /// Encodes the task's upload body. A small multipart form goes into
    /// `request.httpBody`, where plugins see it; a file, or a large form, stays
    /// on disk.
    static func make(for task: RequestTask, request: inout URLRequest) throws(NetworkError) -> UploadBody {
        switch task {
        case .uploadFile(let url):
            return .file(url)
        case .uploadStream(let body):
            if let length = body.knownLength {
                request.setValue(String(length), forHTTPHeaderField: "Content-Length")
            }
            return .stream(body)
        case .uploadMultipart(let parts), .uploadCompositeMultipart(let parts, _):
            return try make(for: MultipartFormData(parts: parts), request: &request)
        case .uploadMultipartFormData(let form), .uploadCompositeMultipartFormData(let form, _):
            return try make(for: form, request: &request)
        default:
            return .none
        }
    }

    private static func make(for form: MultipartFormData, request: inout URLRequest) throws(NetworkError) -> UploadBody {
        request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        do {
            switch try form.encode() {
            case .data(let data):
                request.httpBody = data
                return .none
            case .temporaryFile(let url, let length):
                request.setValue(String(length), forHTTPHeaderField: "Content-Length")
                return .temporaryFile(url)
            }
        } catch {
            throw .requestBuildFailed(error)
        }
    }

    func removeTemporaryFile() {
        if case .temporaryFile(let url) = self {
            try? FileManager.default.removeItem(at: url)
        }
    }
}
