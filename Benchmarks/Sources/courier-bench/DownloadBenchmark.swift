import AsyncHTTPClient
import CMallocCounter
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Item 6: peak memory (VmHWM) while downloading to a file, or (`streams`)
/// while reading a streamed call's body as it arrives and dropping it. Each
/// side runs in its own child process (this executable re-run with
/// `--child-download`), so one side's peak never counts for the other.
struct DownloadBenchmark {
    let baseURL: URL
    let quick: Bool
    /// Reads the body as a stream (Courier's `Provider.stream` against
    /// AsyncHTTPClient's `response.body` and a bare `URLSession` data
    /// delegate) instead of downloading it to a file.
    var streams = false
    /// Sends a body of the same size, made as it is sent (Courier's
    /// `RequestBodyStream` against AsyncHTTPClient's `.stream` body), instead
    /// of receiving one. Only on AsyncHTTPClient: the URLSession transport
    /// reads a streamed body whole (to a file) before sending it, which no
    /// bare `URLSession` call does alike.
    var uploads = false

    private var mode: String { uploads ? "upload" : streams ? "stream" : "download" }

    var bytes: Int { quick ? 256 * 1_048_576 : 1_024 * 1_048_576 }

    func run() throws -> [Row] {
        try (uploads ? ["AsyncHTTPClient"] : ["URLSession", "AsyncHTTPClient"]).flatMap(rows(for:))
    }

    /// Rounds of three child runs on one transport (Courier, the bare client,
    /// and the bare client again for the noise floor), their order turned
    /// each round; the medians of each side.
    private func rows(for transport: String) throws -> [Row] {
        // For AsyncHTTPClient's streams, a fourth side, logged only: the bare
        // client copying each chunk into `Data`, the form Courier hands out,
        // which is what any design with `Data` chunks pays at least.
        let sides = ["courier", "bare", "bare again"] + (mode == "stream" && transport == "AsyncHTTPClient" ? ["bare into Data"] : [])
        var runs: [String: [(peak: Double, rate: Double, cpu: Double, allocations: Double)]] = [:]
        for round in 0..<(quick ? 1 : 5) {
            for index in 0..<sides.count {
                let side = sides[(index + round) % sides.count]
                let prefix = mode == "download" ? "" : mode + "-"
                let name = side == "courier" ? "courier" : side == "bare into Data" ? "bare-data" : "bare"
                let run = try child("\(prefix)\(name)-\(transport)")
                log("  \(mode) \(transport) \(side): peak \(Int(run.peak)) MiB, \(Int(run.rate)) MB/s, "
                    + "\(String(format: "%.2f", run.cpu)) ms CPU and \(Int(run.allocations)) allocations per MB")
                runs[side, default: []].append(run)
            }
        }
        func row(_ what: String, _ unit: String, higherIsBetter: Bool,
                 _ value: ((peak: Double, rate: Double, cpu: Double, allocations: Double)) -> Double) -> Row {
            let label = mode + " " + (quick ? "256 MB" : "1 GB") + (mode == "download" ? " to file" : uploads ? " made as sent" : "")
            return Row(name: "\(label), \(transport), \(what)", unit: unit,
                       courier: median((runs["courier"] ?? []).map(value)), bare: median((runs["bare"] ?? []).map(value)),
                       bareAgain: median((runs["bare again"] ?? []).map(value)), higherIsBetter: higherIsBetter)
        }
        var rows = [
            row("peak RSS", "MiB", higherIsBetter: false) { $0.peak },
            row("throughput", "MB/s", higherIsBetter: true) { $0.rate },
            row("CPU per MB", "ms", higherIsBetter: false) { $0.cpu },
            row("allocations per MB", "allocs", higherIsBetter: false) { $0.allocations },
        ]
        if let intoData = runs["bare into Data"] {
            // Courier against the bare client that copies each chunk into
            // `Data` as Courier hands it out: what the rest of Courier costs.
            let label = mode + " " + (quick ? "256 MB" : "1 GB")
            typealias Run = (peak: Double, rate: Double, cpu: Double, allocations: Double)
            let measures: [(String, String, (Run) -> Double)] = [("CPU per MB", "ms", { $0.cpu }),
                                                                ("allocations per MB", "allocs", { $0.allocations })]
            rows += measures.map { what, unit, value in
                Row(name: "\(label), \(transport), \(what), bare side copying chunks into Data", unit: unit,
                    courier: median((runs["courier"] ?? []).map(value)), bare: median(intoData.map(value)), higherIsBetter: false)
            }
        }
        return rows
    }

    /// Runs one side in a child process; returns its peak RSS in MiB, MB/s,
    /// and the child's CPU milliseconds and allocations per MB (the client
    /// alone: the server is in this process).
    private func child(_ side: String) throws -> (peak: Double, rate: Double, cpu: Double, allocations: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        let url = uploads ? baseURL.appendingPathComponent("sink/\(bytes)") : baseURL.appendingPathComponent("stream/\(bytes)")
        process.arguments = ["--child-download", side, url.absoluteString]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: output, as: UTF8.self).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, fields.count == 4 else {
            throw ChildFailure(side: side, output: String(decoding: output, as: UTF8.self))
        }
        return (fields[0] / 1024, fields[1], fields[2], fields[3])
    }
}

// MARK: - The child

/// One call to `url` as the children make it: a plain `GET` (read whole or
/// streamed), a download, or an upload.
struct URLTarget: TargetType {
    let url: URL
    var method: HTTPMethod = .get
    var task: RequestTask = .requestPlain
    var baseURL: URL { url }
    var path: String { "" }
    var headers: [String: String]? { nil }
}

enum DownloadChild {
    /// Downloads `url` to a temporary file with `side`'s client, then prints
    /// "VmHWM-in-kB MB/s CPU-ms-per-MB allocations-per-MB" and removes the file.
    static func run(side: String, url: URL) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let start = ContinuousClock.now
        let startCPU = processCPUSeconds()
        let startAllocations = courier_bench_allocation_count()
        let target = URLTarget(url: url, task: .downloadDestination(DownloadDestinations.file(file)))
        var streamed = 0
        switch side {
        case "stream-courier-URLSession":
            streamed = try await StreamChild.courier(url, transport: URLSessionTransport())
        case "stream-bare-URLSession":
            streamed = try await BareStreamRead().read(url)
        case "stream-courier-AsyncHTTPClient":
            let transport = AsyncHTTPClientTransport()
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                // One small stream, warm, traced.
                let small = url.deletingLastPathComponent().appendingPathComponent(String(4 << 20))
                _ = try await StreamChild.courier(small, transport: transport)
                try await traceAllocations(of: { _ = try await StreamChild.courier(small, transport: transport) },
                                           to: "\(directory)/stream.courier.trace")
            }
            let result = await capture { try await StreamChild.courier(url, transport: transport) }
            try await transport.shutdown()
            streamed = try result.get()
        case "stream-bare-AsyncHTTPClient":
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                let small = url.deletingLastPathComponent().appendingPathComponent(String(4 << 20))
                _ = try await StreamChild.bareAsyncHTTPClient(small)
                try await traceAllocations(of: { _ = try await StreamChild.bareAsyncHTTPClient(small) },
                                           to: "\(directory)/stream.bare.trace")
            }
            streamed = try await StreamChild.bareAsyncHTTPClient(url)
        case "stream-bare-data-AsyncHTTPClient":
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                let small = url.deletingLastPathComponent().appendingPathComponent(String(4 << 20))
                _ = try await StreamChild.bareAsyncHTTPClient(small, intoData: true)
                try await traceAllocations(of: { _ = try await StreamChild.bareAsyncHTTPClient(small, intoData: true) },
                                           to: "\(directory)/stream.bare-data.trace")
            }
            streamed = try await StreamChild.bareAsyncHTTPClient(url, intoData: true)
        case "upload-courier-AsyncHTTPClient":
            let transport = AsyncHTTPClientTransport()
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                // One small upload, warm, traced.
                let small = url.deletingLastPathComponent().appendingPathComponent(String(4 << 20))
                _ = try await UploadChild.courier(small, transport: transport)
                try await traceAllocations(of: { _ = try await UploadChild.courier(small, transport: transport) },
                                           to: "\(directory)/upload.courier.trace")
            }
            let result = await capture { try await UploadChild.courier(url, transport: transport) }
            try await transport.shutdown()
            streamed = try result.get()
        case "upload-bare-AsyncHTTPClient":
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                let small = url.deletingLastPathComponent().appendingPathComponent(String(4 << 20))
                _ = try await UploadChild.bareAsyncHTTPClient(small)
                try await traceAllocations(of: { _ = try await UploadChild.bareAsyncHTTPClient(small) },
                                           to: "\(directory)/upload.bare.trace")
            }
            streamed = try await UploadChild.bareAsyncHTTPClient(url)
        case "courier-URLSession":
            _ = try await Provider<URLTarget>(transport: URLSessionTransport()).request(target)
        case "bare-URLSession":
            try await BareFileDownload().download(url, to: file)
        case "courier-AsyncHTTPClient":
            let transport = AsyncHTTPClientTransport()
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                // One small download, warm, traced.
                let small = URLTarget(url: url.deletingLastPathComponent().appendingPathComponent(String(4 << 20)),
                                      task: .downloadDestination(DownloadDestinations.file(file)))
                _ = try await Provider<URLTarget>(transport: transport).request(small)
                try await traceAllocations(of: { _ = try await Provider<URLTarget>(transport: transport).request(small) },
                                           to: "\(directory)/download.courier.trace")
            }
            let result = await capture { try await Provider<URLTarget>(transport: transport).request(target) }
            try await transport.shutdown()
            _ = try result.get()
        case "bare-AsyncHTTPClient":
            if let directory = ProcessInfo.processInfo.environment["COURIER_BENCH_ALLOCATION_TRACE"] {
                let small = url.deletingLastPathComponent().appendingPathComponent(String(4 << 20))
                try await bareAsyncHTTPClientDownload(small, to: file)
                try await traceAllocations(of: { try await bareAsyncHTTPClientDownload(small, to: file) },
                                           to: "\(directory)/download.bare.trace")
            }
            try await bareAsyncHTTPClientDownload(url, to: file)
        default:
            throw ChildFailure(side: side, output: "unknown side")
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let cpu = processCPUSeconds() - startCPU
        let allocations = Double(courier_bench_allocation_count() - startAllocations)
        let size = side.hasPrefix("stream-") || side.hasPrefix("upload-") ? streamed
            : (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        let megabytes = max(Double(size) / 1e6, 1e-9)
        // A fifth figure for a stream read through AsyncHTTPClient: the chunks
        // it came in, a megabyte.
        let chunks = side.hasPrefix("stream-") && side.hasSuffix("AsyncHTTPClient") ? " \(Double(StreamChild.chunks) / megabytes)" : ""
        print("\(peakResidentKilobytes()) \(megabytes / seconds) \(cpu * 1e3 / megabytes) \(allocations / megabytes)\(chunks)")
    }
}

/// `HTTPClient.execute`, writing each body chunk to a file as it arrives.
func bareAsyncHTTPClientDownload(_ url: URL, to file: URL) async throws {
    let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    let result = await capture {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), deadline: .distantFuture)
        for try await chunk in response.body {
            try chunk.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
        }
    }
    try await client.shutdown()
    try result.get()
}

/// A bare `URLSession` data task whose delegate appends each chunk to a file.
final class BareFileDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read after completion.
    private var handle: FileHandle?
    private var continuation: CheckedContinuation<Void, any Error>?

    func download(_ url: URL, to file: URL) async throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        handle = try FileHandle(forWritingTo: file)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .default, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                self.continuation = continuation
                session.dataTask(with: url).resume()
            }
        }
        try handle?.close()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handle?.write(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
        continuation = nil
    }
}

// MARK: - Uploads made as they are sent

/// `total` bytes in 64 KiB chunks of one `Element`, made as they are asked for.
struct Generated<Element: Sendable>: AsyncSequence, Sendable {
    let chunk: Element
    let chunkSize: Int
    let total: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunk: Element
        let chunkSize: Int
        var remaining: Int
        mutating func next() async -> Element? {
            guard remaining > 0 else { return nil }
            remaining -= chunkSize
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunk: chunk, chunkSize: chunkSize, remaining: total) }
}

enum UploadChild {
    static let chunkSize = 64 * 1024

    /// The size the URL's last path component asks for.
    static func size(of url: URL) -> Int { Int(url.lastPathComponent) ?? 0 }

    /// Sends `size(of: url)` bytes through Courier as a `RequestBodyStream` of
    /// unknown length (chunked); returns the bytes sent.
    static func courier(_ url: URL, transport: any Transport) async throws -> Int {
        let total = size(of: url)
        let bytes = Generated(chunk: Data(repeating: 0x61, count: chunkSize), chunkSize: chunkSize, total: total)
        let response = try await Provider<URLTarget>(transport: transport)
            .request(URLTarget(url: url, method: .post, task: .uploadStream(RequestBodyStream(bytes, length: .unknown))))
        guard response.statusCode == 200 else { throw ChildFailure(side: "upload", output: "status \(response.statusCode)") }
        return total
    }

    /// `HTTPClient.execute` with a `.stream` body of unknown length.
    static func bareAsyncHTTPClient(_ url: URL) async throws -> Int {
        let total = size(of: url)
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let result = await capture {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            let bytes = Generated(chunk: ByteBuffer(repeating: 0x61, count: chunkSize), chunkSize: chunkSize, total: total)
            request.body = .stream(bytes, length: .unknown)
            let response = try await client.execute(request, deadline: .distantFuture)
            for try await _ in response.body {}
            guard response.status == .ok else { throw ChildFailure(side: "upload", output: "status \(response.status)") }
            return total
        }
        try await client.shutdown()
        return try result.get()
    }
}

// MARK: - Streamed reads

enum StreamChild {
    /// The chunks the last stream of this process was read in, for the
    /// allocations of one chunk (a reader that keeps up gets smaller reads,
    /// so more chunks a megabyte).
    nonisolated(unsafe) static var chunks = 0

    /// Reads the body of a streamed call on `transport`, chunk by chunk, and
    /// returns its length.
    static func courier(_ url: URL, transport: any Transport) async throws -> Int {
        let response = try await Provider<URLTarget>(transport: transport).stream(URLTarget(url: url))
        var count = 0
        var chunks = 0
        for try await chunk in response.body {
            count += chunk.count
            chunks += 1
        }
        Self.chunks = chunks
        return count
    }

    /// `HTTPClient.execute`, reading `response.body` chunk by chunk; with
    /// `intoData`, each chunk copied into `Data` as it is read.
    static func bareAsyncHTTPClient(_ url: URL, intoData: Bool = false) async throws -> Int {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let result = await capture {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), deadline: .distantFuture)
            var count = 0
            var chunks = 0
            for try await chunk in response.body {
                count += intoData ? Data(chunk.readableBytesView).count : chunk.readableBytes
                chunks += 1
            }
            StreamChild.chunks = chunks
            return count
        }
        try await client.shutdown()
        return try result.get()
    }
}

/// A bare `URLSession` data task whose delegate counts each chunk
/// (`urlSession(_:dataTask:didReceive:)`).
final class BareStreamRead: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only on the session's serial delegate queue, then read after completion.
    private var count = 0
    private var continuation: CheckedContinuation<Int, any Error>?

    func read(_ url: URL) async throws -> Int {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .default, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                self.continuation = continuation
                session.dataTask(with: url).resume()
            }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        count += data.count
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume(returning: count) }
        continuation = nil
    }
}
