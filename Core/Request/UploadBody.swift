import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of an upload task, attached by the provider: a file the caller
/// named, or a multipart form encoded in memory or into a temporary file.
enum UploadBody {
    case none
    case file(URL)
    case temporaryFile(URL)

    var file: URL? {
        switch self {
        case .none: nil
        case .file(let url), .temporaryFile(let url): url
        }
    }

    /// Encodes the task's upload body. A small multipart form goes into
    /// `request.httpBody`, where plugins see it; a file, or a large form, stays
    /// on disk.
    static func make(for task: RequestTask, request: inout URLRequest) throws(NetworkError) -> UploadBody {
        switch task {
        case .uploadFile(let url):
            return .file(url)
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
