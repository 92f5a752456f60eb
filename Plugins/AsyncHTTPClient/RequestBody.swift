import AsyncHTTPClient
import Courier
import Foundation
import NIOCore

/// Builds request bodies that stream in chunks and report upload progress as
/// AsyncHTTPClient takes each chunk.
enum RequestBody {
    static let chunkSize = 64 * 1024

    static func make(data: Data?, file: URL?, progress: ProgressHandler?, activity: Activity) throws -> HTTPClientRequest.Body? {
        if let file {
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch {
                throw NetworkError.requestBuildFailed(UploadFailure.unreadableFile(file.path, String(describing: error)))
            }
            let chunks = UploadChunks(source: .file(file), total: size, progress: progress, activity: activity)
            return .stream(chunks, length: .known(size))
        }
        guard let data else { return nil }
        let chunks = UploadChunks(source: .data(data), total: Int64(data.count), progress: progress, activity: activity)
        return .stream(chunks, length: .known(Int64(data.count)))
    }
}

/// Why a body could not be sent.
enum UploadFailure: Error, CustomStringConvertible {
    case unreadableFile(String, String)
    case fileChanged(String)

    var description: String {
        switch self {
        case .unreadableFile(let path, let detail):
            "the upload file \(path) cannot be read (\(detail)); check that it exists and is readable"
        case .fileChanged(let path):
            "the upload file \(path) shrank while it was being sent; do not change a file during its upload"
        }
    }
}

/// A body as a sequence of chunks, read from memory or from disk only when
/// AsyncHTTPClient asks for the next one, so memory stays bounded.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }

    let source: Source
    let total: Int64
    let progress: ProgressHandler?
    let activity: Activity

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let chunks: UploadChunks
        var sent: Int64 = 0
        var reader: FileReader?

        mutating func next() async throws -> ByteBuffer? {
            guard sent < chunks.total else {
                reader?.close()
                return nil
            }
            let chunk: Data
            switch chunks.source {
            case .data(let data):
                let start = data.startIndex + Int(sent)
                chunk = data[start..<Swift.min(start + RequestBody.chunkSize, data.endIndex)]
            case .file(let url):
                let reader = try self.reader ?? FileReader(url)
                self.reader = reader
                chunk = try reader.read(RequestBody.chunkSize)
                if chunk.isEmpty { throw UploadFailure.fileChanged(url.path) }
            }
            sent += Int64(chunk.count)
            chunks.activity.touch()
            chunks.progress?(TransferProgress(direction: .upload, completedBytes: sent, totalBytes: chunks.total))
            return ByteBuffer(bytes: chunk)
        }
    }
}

/// A file opened for reading in chunks.
final class FileReader: @unchecked Sendable {
    private let handle: FileHandle
    private let path: String

    init(_ url: URL) throws {
        path = url.path
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw UploadFailure.unreadableFile(url.path, String(describing: error))
        }
    }

    func read(_ count: Int) throws -> Data {
        do {
            return try handle.read(upToCount: count) ?? Data()
        } catch {
            throw UploadFailure.unreadableFile(path, String(describing: error))
        }
    }

    func close() {
        try? handle.close()
    }
}
