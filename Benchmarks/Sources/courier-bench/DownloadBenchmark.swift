import AsyncHTTPClient
import CMallocCounter
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOPosix
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Item 6: peak memory (VmHWM) while downloading to a file. Each side runs in
/// its own child process (this executable re-run with `--child-download`), so
/// one side's peak never counts for the other.
struct DownloadBenchmark {
    let baseURL: URL
    let quick: Bool

    var bytes: Int { quick ? 256 * 1_048_576 : 1_024 * 1_048_576 }

    func run() throws -> [Row] {
        try ["URLSession", "AsyncHTTPClient"].flatMap(rows(for:))
    }

    /// Four alternating child runs (courier, bare, bare, courier) on one transport.
    private func rows(for transport: String) throws -> [Row] {
        var courier: [Double] = []
        var bare: [Double] = []
        var courierRate: [Double] = []
        var bareRate: [Double] = []
        var courierCPU: [Double] = []
        var bareCPU: [Double] = []
        var courierAllocations: [Double] = []
        var bareAllocations: [Double] = []
        for side in ["courier", "bare", "bare", "courier"] {
            let run = try child("\(side)-\(transport)")
            log("  download \(transport) \(side): peak \(Int(run.peak)) MiB, \(Int(run.rate)) MB/s, "
                + "\(String(format: "%.2f", run.cpu)) ms CPU and \(Int(run.allocations)) allocations per MB")
            if side == "courier" {
                courier.append(run.peak)
                courierRate.append(run.rate)
                courierCPU.append(run.cpu)
                courierAllocations.append(run.allocations)
            } else {
                bare.append(run.peak)
                bareRate.append(run.rate)
                bareCPU.append(run.cpu)
                bareAllocations.append(run.allocations)
            }
        }
        let label = quick ? "256 MB" : "1 GB"
        return [
            Row(name: "download \(label) to file, \(transport), peak RSS", unit: "MiB", courier: median(courier),
                bare: median(bare), higherIsBetter: false),
            Row(name: "download \(label) to file, \(transport), throughput", unit: "MB/s",
                courier: median(courierRate), bare: median(bareRate), higherIsBetter: true),
            Row(name: "download \(label) to file, \(transport), CPU per MB", unit: "ms",
                courier: median(courierCPU), bare: median(bareCPU), higherIsBetter: false),
            Row(name: "download \(label) to file, \(transport), allocations per MB", unit: "allocs",
                courier: median(courierAllocations), bare: median(bareAllocations), higherIsBetter: false),
        ]
    }

    /// Runs one side in a child process; returns its peak RSS in MiB, MB/s,
    /// and the child's CPU milliseconds and allocations per MB (the client
    /// alone: the server is in this process).
    private func child(_ side: String) throws -> (peak: Double, rate: Double, cpu: Double, allocations: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
        process.arguments = ["--child-download", side, baseURL.appendingPathComponent("stream/\(bytes)").absoluteString]
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

/// `GET url`, downloaded to `destination`.
struct DownloadTarget: TargetType {
    let url: URL
    let destination: DownloadDestination
    var baseURL: URL { url }
    var path: String { "" }
    var method: HTTPMethod { .get }
    var task: RequestTask { .downloadDestination(destination) }
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
        let target = DownloadTarget(url: url, destination: DownloadDestinations.file(file))
        switch side {
        case "courier-URLSession":
            _ = try await Provider<DownloadTarget>(transport: URLSessionTransport()).request(target)
        case "bare-URLSession":
            try await BareFileDownload().download(url, to: file)
        case "courier-AsyncHTTPClient":
            let transport = AsyncHTTPClientTransport()
            let result = await capture { try await Provider<DownloadTarget>(transport: transport).request(target) }
            try await transport.shutdown()
            _ = try result.get()
        case "bare-AsyncHTTPClient":
            try await bareAsyncHTTPClientDownload(url, to: file)
        default:
            throw ChildFailure(side: side, output: "unknown side")
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let cpu = processCPUSeconds() - startCPU
        let allocations = Double(courier_bench_allocation_count() - startAllocations)
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        let megabytes = max(Double(size) / 1e6, 1e-9)
        print("\(peakResidentKilobytes()) \(megabytes / seconds) \(cpu * 1e3 / megabytes) \(allocations / megabytes)")
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
