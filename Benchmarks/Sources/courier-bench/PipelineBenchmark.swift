import CMallocCounter
import Courier
import CourierCodable
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers every request with the same 1 KiB JSON response,
/// so only the pipeline's own work is measured.
struct StubTransport: Transport {
    func send(_ request: TransportRequest) async throws(NetworkError) -> TransportResponse {
        TransportResponse(statusCode: 200, url: request.url, headerFields: ["Content-Type": "application/json"],
                          body: ResponseBody(Payload.json))
    }
}

/// Item 3: CPU time and allocations per request through the whole pipeline
/// (four no-op plugins, `DecodableMapper`) on a stub transport, against
/// calling the same stub transport directly and decoding with `JSONDecoder`.
///
/// Allocations are counted by the `CMallocCounter` interposer (every malloc,
/// calloc, realloc, posix_memalign and aligned_alloc call in the process,
/// measured on one task with nothing else running).
struct PipelineBenchmark {
    let quick: Bool

    func run() async throws -> [Row] {
        let baseURL = URL(string: "http://127.0.0.1:1")!
        let transport = StubTransport()
        let provider = Provider<BenchTarget>(transport: transport, plugins: fourNoopPlugins)
        let target = BenchTarget(baseURL: baseURL)
        let mapper = DecodableMapper<Payload>()
        let courier: BenchOperation = { _ = try await provider.request(target, mapper: mapper) }
        // One decoder for every call, as `DecodableMapper` keeps one.
        let decoder = JSONDecoder()
        let bare: BenchOperation = {
            let request = TransportRequest(urlRequest: URLRequest(url: baseURL.appendingPathComponent("json")))
            let response = try await transport.send(request)
            _ = try decoder.decode(Payload.self, from: try await response.body.collect(upTo: 1 << 20))
        }
        let iterations = quick ? 5_000 : 20_000
        for _ in 0..<1_000 {
            try await courier()
            try await bare()
        }
        let time = try await interleaved(
            rounds: quick ? 7 : 15,
            courier: { try await microsecondsPerCall(iterations, courier) },
            bare: { try await microsecondsPerCall(iterations, bare) }
        )
        let allocations = try await interleaved(
            rounds: 3,
            courier: { try await allocationsPerCall(2_000, courier) },
            bare: { try await allocationsPerCall(2_000, bare) }
        )
        return [
            Row(name: "stub pipeline CPU per request", unit: "us", courier: time.courier, bare: time.bare,
                bareAgain: time.bareAgain, higherIsBetter: false),
            Row(name: "stub pipeline allocations per request", unit: "allocs", courier: allocations.courier,
                bare: allocations.bare, bareAgain: allocations.bareAgain, higherIsBetter: false),
        ]
    }

    /// Process CPU time per call, not wall time: on a shared machine a
    /// preempted round would otherwise count another tenant's work.
    private func microsecondsPerCall(_ count: Int, _ operation: BenchOperation) async throws -> Double {
        let start = processCPUSeconds()
        for _ in 0..<count { try await operation() }
        return (processCPUSeconds() - start) / Double(count) * 1e6
    }
}
