import Courier
import CourierTestSupport
import Foundation
import Testing

/// A streamed view's memory follows the input still pending, never the
/// longest line seen before: one line just under the 1 MiB limit, then
/// 2 MiB of empty lines (2 Mi lines), plain and gzip-encoded, read line by
/// line on each transport. Before, every empty line after the long one
/// allocated the long one's size, and a chunk's lines were built before the
/// first was handed on: gigabytes. Each case runs in a process of its own,
/// so the growth is that call's; the bound is 64 MiB (twice under the
/// thread sanitizer), for the transports' read-ahead and the long line.
/// `URLSessionTransport` is opted in to compressed answers for the gzip case
/// (by default it refuses them at the head): what is measured is the view.
@Suite(.serialized) struct StreamedViewMemoryTests {
    static let longLine = 1_048_000
    /// 2 Mi empty lines, 1 Mi under the thread sanitizer: the old parser
    /// would have grown by a mebibyte a line, a terabyte either way, and the
    /// fixed one holds no more for more lines (8 Mi, measured: the same
    /// growth, four times as long). `COURIER_STREAMED_EMPTY_LINES=67108864`
    /// runs the 64 MiB of the hostile-input goal (about 32 times as long).
    static let emptyLines: Int = {
        let block = 64 << 10
        guard let asked = ProcessInfo.processInfo.environment["COURIER_STREAMED_EMPTY_LINES"].flatMap(Int.init) else {
            return PeakMemory.isSanitized ? 1 << 20 : 2 << 20
        }
        // Whole blocks of 64 KiB, as the server sends them.
        return max(block, asked / block * block)
    }()

    @Test(arguments: TransportKind.networked, [false, true])
    func aLongLineThenMillionsOfEmptyOnesStayInBoundedMemory(kind: TransportKind, gzip: Bool) async throws {
        try await MeasuredAlone.run(suite: "StreamedViewMemoryTests", case: "\(kind) \(gzip)") {
            try await kind.withProvider(decodesCompressed: gzip) { provider, server in
                server.route("/lines") { _ in
                    LoopbackResponse(headers: gzip ? [("Content-Encoding", "gzip")] : [], body: .streamed { writer in
                        let encoder = gzip ? DeflateEncoder(gzip: true) : nil
                        func send(_ bytes: [UInt8], finish: Bool = false) async throws {
                            let out = encoder.map { $0.encode(bytes, finish: finish) } ?? bytes
                            if !out.isEmpty { try await writer.write(Data(out)) }
                        }
                        try await send(Array(": ".utf8) + [UInt8](repeating: 0x78, count: Self.longLine) + [0x0A])
                        let empty = [UInt8](repeating: 0x0A, count: 64 << 10)
                        for _ in 0..<(Self.emptyLines / empty.count) { try await send(empty) }
                        try await send([], finish: true)
                    })
                }
                let measured = try await PeakMemory.measure { () async throws -> Int in
                    var lines = 0
                    for try await _ in try await provider.stream(TestTarget(server.baseURL, path: "/lines")).lines {
                        lines += 1
                    }
                    return lines
                }
                MeasuredAlone.report("\(kind), gzip \(gzip): \(measured.result) lines, the resident memory grew by \(measured.growth) MiB")
                #expect(measured.result == 1 + Self.emptyLines)
                #expect(measured.growth <= PeakMemory.bound(64), "the resident memory grew by \(measured.growth) MiB")
            }
        }
    }
}
