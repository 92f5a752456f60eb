import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a finished task left: the response, and the body in memory or in a
/// temporary file.
struct CompletedTask: Sendable {
    let response: HTTPURLResponse
    let body: Data
    let temporaryFile: URL?
    let receivedBytes: Int64

    func removeTemporaryFile() {
        if let temporaryFile {
            try? FileManager.default.removeItem(at: temporaryFile)
        }
    }

    /// The ``Response``, with a download moved to its destination.
    func makeResponse(for request: URLRequest, destination: DownloadDestination?) throws -> Response {
        let httpResponse = DecodedBody.normalize(response, bodyLength: receivedBytes)
        guard let temporaryFile else {
            return Response(statusCode: httpResponse.statusCode, data: body, request: request, response: httpResponse)
        }
        guard let destination else {
            removeTemporaryFile()
            return Response(statusCode: httpResponse.statusCode, data: Data(), request: request, response: httpResponse)
        }
        let (url, options) = destination(temporaryFile, httpResponse)
        do {
            try DownloadMover.move(temporaryFile, to: url, options: options)
        } catch {
            removeTemporaryFile()
            throw NetworkError.transport(error)
        }
        return Response(statusCode: httpResponse.statusCode, data: Data(), request: request, response: httpResponse, fileURL: url)
    }
}

/// Per-task state, written by the delegate's serial queue and by the awaiting
/// Swift task.
final class TaskBox: @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<CompletedTask, any Error>?
        var cancelled = false
        var response: HTTPURLResponse?
        var body = Data()
        var file: FileHandle?
        var fileURL: URL?
        var received: Int64 = 0
        var failure: (any Error)?
        var lastActivity = DispatchTime.now().uptimeNanoseconds
    }

    let progress: ProgressHandler?
    let downloadsToFile: Bool
    let originalURL: URL?
    private let state = Locked(State())

    init(progress: ProgressHandler?, downloadsToFile: Bool, originalURL: URL?) {
        self.progress = progress
        self.downloadsToFile = downloadsToFile
        self.originalURL = originalURL
    }

    /// Stores the continuation; `false` when the task was cancelled first.
    func attach(_ continuation: CheckedContinuation<CompletedTask, any Error>) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.continuation = continuation
            return true
        }
    }

    func markCancelled() {
        state.withLock { $0.cancelled = true }
    }

    /// Waits until the task has been idle (nothing sent or received) for
    /// `idleTimeout` seconds, then records a time-out and calls `expire`.
    /// Returns early when cancelled.
    func watch(idleTimeout: TimeInterval, expire: @Sendable () -> Void) async {
        let limit = UInt64(idleTimeout * 1_000_000_000)
        while !Task.isCancelled {
            let idle = DispatchTime.now().uptimeNanoseconds &- state.withLock { $0.lastActivity }
            if idle >= limit {
                state.withLock { state in
                    if state.failure == nil { state.failure = URLError(.timedOut) }
                }
                expire()
                return
            }
            try? await Task.sleep(nanoseconds: limit - idle)
        }
    }

    func receive(_ response: HTTPURLResponse) throws {
        guard downloadsToFile else {
            state.withLock { state in
                state.response = response
                state.lastActivity = DispatchTime.now().uptimeNanoseconds
            }
            return
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw DownloadFailure.cannotCreateTemporaryFile(url.path)
        }
        let handle = try FileHandle(forWritingTo: url)
        state.withLock { state in
            state.response = response
            state.file = handle
            state.fileURL = url
            state.lastActivity = DispatchTime.now().uptimeNanoseconds
        }
    }

    func receive(_ data: Data) {
        let (received, expected) = state.withLock { state -> (Int64, Int64) in
            if let file = state.file {
                do {
                    try file.write(contentsOf: data)
                } catch {
                    state.failure = DownloadFailure.writeFailed(String(describing: error))
                }
            } else {
                state.body.append(data)
            }
            state.received += Int64(data.count)
            state.lastActivity = DispatchTime.now().uptimeNanoseconds
            return (state.received, state.response?.expectedContentLength ?? -1)
        }
        // URLSession may decode a compressed body, so more bytes can arrive than
        // Content-Length announced; then the total is unknown.
        let total = expected > 0 && received <= expected ? expected : nil
        progress?(TransferProgress(direction: .download, completedBytes: received, totalBytes: total))
    }

    func sent(_ totalSent: Int64, of expected: Int64) {
        state.withLock { $0.lastActivity = DispatchTime.now().uptimeNanoseconds }
        progress?(TransferProgress(direction: .upload, completedBytes: totalSent, totalBytes: expected > 0 ? expected : nil))
    }

    var hasFailed: Bool { state.withLock { $0.failure != nil } }

    func complete(task: URLSessionTask, error: (any Error)?) {
        let (continuation, outcome) = state.withLock { state -> (CheckedContinuation<CompletedTask, any Error>?, Result<CompletedTask, any Error>) in
            try? state.file?.close()
            state.file = nil
            let continuation = state.continuation
            state.continuation = nil
            if let failure = state.failure ?? error {
                if let fileURL = state.fileURL { try? FileManager.default.removeItem(at: fileURL) }
                let timedOut = (state.failure as? URLError)?.code == .timedOut
                return (continuation, .failure(state.cancelled && !timedOut ? CancellationError() : failure))
            }
            guard let response = state.response ?? task.response as? HTTPURLResponse else {
                return (continuation, .failure(URLError(.badServerResponse)))
            }
            let completed = CompletedTask(response: response, body: state.body, temporaryFile: state.fileURL, receivedBytes: state.received)
            return (continuation, .success(completed))
        }
        continuation?.resume(with: outcome)
    }
}

/// Why a download could not be written to disk (shared by this package's transports).
package enum DownloadFailure: Error, CustomStringConvertible {
    case cannotCreateTemporaryFile(String)
    case writeFailed(String)

    package var description: String {
        switch self {
        case .cannotCreateTemporaryFile(let path): "cannot create the temporary download file \(path); check free space and permissions"
        case .writeFailed(let detail): "writing the download to disk failed (\(detail)); check free space"
        }
    }
}

// MARK: - The session delegate

final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let boxes = Locked<[Int: TaskBox]>([:])
    private let followsRedirects: Bool

    init(followsRedirects: Bool) {
        self.followsRedirects = followsRedirects
    }

    func register(_ box: TaskBox, for task: URLSessionTask) {
        boxes.withLock { $0[task.taskIdentifier] = box }
    }

    func unregister(_ task: URLSessionTask) {
        boxes.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func box(for task: URLSessionTask) -> TaskBox? {
        boxes.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let box = box(for: dataTask), let response = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        do {
            try box.receive(response)
            completionHandler(.allow)
        } catch {
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let box = box(for: dataTask) else { return }
        box.receive(data)
        if box.hasFailed { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        box(for: task)?.sent(totalBytesSent, of: totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // 307 and 308 keep the method and body; URLSession on Linux drops the
        // body, so the transport follows those itself.
        guard followsRedirects, response.statusCode != 307, response.statusCode != 308 else {
            completionHandler(nil)
            return
        }
        var request = request
        if !Origin.same(box(for: task)?.originalURL ?? task.originalRequest?.url, request.url) {
            Origin.stripCredentials(from: &request)
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let box = boxes.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        box?.complete(task: task, error: error)
    }
}

// MARK: - Bodies URLSession decoded

enum DecodedBody {
    /// Encodings `URLSession` decodes by itself (it asks for them in
    /// `Accept-Encoding`) while leaving `Content-Encoding` in the headers.
    private static let decodedEncodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]

    /// The response with `Content-Encoding` removed and `Content-Length` set to
    /// the decoded size, when `URLSession` has decoded the body; otherwise the
    /// response unchanged.
    static func normalize(_ response: HTTPURLResponse, bodyLength: Int64) -> HTTPURLResponse {
        guard let encoding = response.value(forHTTPHeaderField: "Content-Encoding")?
            .trimmingCharacters(in: .whitespaces).lowercased(),
            decodedEncodings.contains(encoding),
            let url = response.url
        else { return response }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            let lowered = name.lowercased()
            if lowered == "content-encoding" || lowered == "content-length" { continue }
            fields[name] = value
        }
        fields["Content-Length"] = String(bodyLength)
        return HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: fields) ?? response
    }
}

// MARK: - Moving a download into place

/// Moves a finished download into place (shared by this package's transports).
package enum DownloadMover {
    package static func move(_ source: URL, to destination: URL, options: DownloadOptions) throws {
        let files = FileManager.default
        if options.contains(.createIntermediateDirectories) {
            try files.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        if options.contains(.removePreviousFile), files.fileExists(atPath: destination.path) {
            try files.removeItem(at: destination)
        }
        try files.moveItem(at: source, to: destination)
    }
}
