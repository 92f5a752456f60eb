import Foundation
import OpenAPIRuntime

/// A downloaded response body read back in chunks, the file removed when the
/// reading ends (or the body is dropped unread).
final class FileChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    private let url: URL
    private let handle: FileHandle
    static let chunkSize = 64 * 1024

    private init(url: URL) throws {
        self.url = url
        self.handle = try FileHandle(forReadingFrom: url)
    }

    deinit {
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }

    /// The file as a body that can be read once.
    static func body(streaming url: URL) throws -> HTTPBody {
        let chunks = try FileChunks(url: url)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        return HTTPBody(chunks, length: size.map { .known($0) } ?? .unknown, iterationBehavior: .single)
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: FileChunks

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let data = try chunks.handle.read(upToCount: FileChunks.chunkSize), !data.isEmpty else { return nil }
            return ArraySlice(data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: self)
    }
}
