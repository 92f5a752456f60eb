import Courier
import Foundation
import NIOCore

/// A received body, in memory or in a temporary file.
enum ReceivedBody: Sendable {
    case memory(Data)
    case file(URL, length: Int64)
}

/// Collects a response body in memory, or writes it chunk by chunk to a
/// temporary file so a download of any size needs bounded memory.
final class BodySink {
    private var data = Data()
    private var file: (url: URL, handle: FileHandle)?
    private var length: Int64 = 0

    init(toFile: Bool) throws {
        guard toFile else { return }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw DownloadFailure.cannotCreateTemporaryFile(url.path)
        }
        do {
            file = (url, try FileHandle(forWritingTo: url))
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw DownloadFailure.cannotCreateTemporaryFile(url.path)
        }
    }

    func write(_ buffer: ByteBuffer) throws {
        length += Int64(buffer.readableBytes)
        guard let file else {
            data.append(contentsOf: buffer.readableBytesView)
            return
        }
        do {
            try buffer.withUnsafeReadableBytes { try file.handle.write(contentsOf: $0) }
        } catch {
            throw DownloadFailure.writeFailed(String(describing: error))
        }
    }

    func finish() throws -> ReceivedBody {
        guard let file else { return .memory(data) }
        do {
            try file.handle.close()
        } catch {
            discard()
            throw DownloadFailure.writeFailed(String(describing: error))
        }
        self.file = nil
        return .file(file.url, length: length)
    }

    /// Closes and removes the temporary file, so a failed download leaves nothing behind.
    func discard() {
        guard let file else { return }
        try? file.handle.close()
        try? FileManager.default.removeItem(at: file.url)
        self.file = nil
    }
}

